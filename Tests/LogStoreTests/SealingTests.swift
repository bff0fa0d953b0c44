import Foundation
import StoreProtocol
@_spi(FaultInjection) import StoreFiles
import LogStore
import StoreTestSupport
import Testing

/// Issue 11, defect 4: with `.periodic` durability a full segment's index reached the disk
/// before the segment's data, so a power loss could leave an index claiming more than the
/// segment holds, and the log refused to open.
@Suite struct LogSealingTests {
    func periodic(_ directory: URL) -> LogStoreConfiguration {
        LogStoreConfiguration(directory: directory, timestamps: [LogTimestamp(\Reading.timestamp)], segmentSize: 2_000,
                              durability: .periodic(3_600))
    }

    /// Every index is written (its temporary file created) only after the segment it describes
    /// was flushed following its last write.
    @Test func aSegmentIsFlushedBeforeItsIndexIsWritten() throws {
        let directory = try temporaryDirectory()
        let operations = Locked<[(FileFaults.Operation, String)]>([])
        let hook = FileFaults.install { operation, path in
            if path.hasPrefix(directory.path) { operations.withLock { $0.append((operation, URL(filePath: path).lastPathComponent)) } }
            return nil
        }
        defer { FileFaults.remove(hook) }
        let (container, _) = try open(periodic(directory))
        try append(0..<40, perSave: 2, to: container)
        FileFaults.remove(hook)

        let recorded = operations.withLock { $0 }
        var flushed: [String: Bool] = [:]   // segment name -> flushed since its last write
        var indexes = 0
        for (operation, name) in recorded {
            if name.hasSuffix(".log") {
                if operation == .write { flushed[name] = false }
                if operation == .sync { flushed[name] = true }
            } else if operation == .create, let range = name.range(of: ".index.tmp-") {
                let segment = String(name[..<range.lowerBound]) + ".log"
                #expect(flushed[segment] == true, "\(name) was written before \(segment) was flushed")
                indexes += 1
            }
        }
        #expect(indexes >= 3, "the log sealed \(indexes) segments")
    }

    /// A log as the old order could leave it after a power loss: the last sealed segment lost
    /// its last save(s) (cut at a record, or inside one) though its index claims them, and the
    /// next segment was created but holds no whole record. That loss is at the log's tail, so
    /// the log opens with what the segments hold; the writer drops the stale index and the empty
    /// segment, and later saves follow on. With a record in the next segment (the negative
    /// control) it is damage: `.corruptStore`, nothing changed.
    @Test func anIndexClaimingMoreThanItsSegmentHoldsAtTheTailIsAPowerLoss() throws {
        let base = try temporaryDirectory()
        let source = base.appending(path: "source")
        do {
            let (container, _) = try open(periodic(source))
            try append(0..<40, perSave: 2, to: container)
        }
        let pristine = try directoryContents(source)
        let names = pristine.keys.filter { $0.hasSuffix(".log") }.sorted()
        #expect(names.count >= 3)
        #expect(DamagedFrameTests.recordOffsets(pristine[names[0]]!).count >= 3, "segments hold several records")
        let sealedName = names[names.count - 2], lastName = names[names.count - 1]
        #expect(pristine[sealedName.replacingOccurrences(of: ".log", with: ".index")] != nil, "\(sealedName) is sealed")
        let first = try #require(Int(sealedName.dropFirst("segment-".count).dropLast(".log".count)))
        let offsets = DamagedFrameTests.recordOffsets(pristine[sealedName]!)
        let lastRecord = try #require(offsets.last)
        // Transactions before the lost record: each holds minutes 2(n-1) and 2(n-1)+1.
        let kept = first + offsets.count - 2
        let expected = (0..<(2 * kept)).map(Double.init)

        var round = 0
        for cut in [lastRecord, lastRecord + 7] {
            for (nextSegment, isPowerLoss) in [(Data(), true), (pristine[lastName]!.prefix(10), true), (pristine[lastName]!, false)] {
                round += 1
                let directory = base.appending(path: "round-\(round)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
                var contents = pristine
                contents[sealedName] = pristine[sealedName]!.prefix(cut)
                contents[lastName] = nextSegment
                try restore(directory, to: contents)
                let what = "cut at byte \(cut) of \(sealedName), next segment \(nextSegment.count) bytes"
                let before = try tree(directory)
                var reading = periodic(directory)
                reading.allowsSave = false
                guard isPowerLoss else {
                    for settings in [reading, periodic(directory)] {
                        #expect(Comment(rawValue: what)) {
                            _ = try open(settings)
                        } throws: { error in
                            (error as? DataStoreError)?.code == .corruptStore && "\(error)".contains(sealedName)
                        }
                        #expect(try tree(directory) == before, "\(what): nothing changed")
                    }
                    continue
                }
                #expect(try values(open(reading).0) == expected, "\(what): read-only")
                #expect(try tree(directory) == before, "\(what): a read-only open changes nothing")

                let (container, store) = try open(periodic(directory))
                #expect(try values(container) == expected, "\(what): writable")
                let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                #expect(!left.contains(lastName) && !left.contains(sealedName.replacingOccurrences(of: ".log", with: ".index")),
                        "\(what): the empty segment and the stale index are gone")
                try append(1_000..<1_004, perSave: 2, to: container)
                try store.flush()
                let (reopened, reopenedStore) = try open(periodic(directory))
                #expect(try values(reopened) == expected + [1_000, 1_001, 1_002, 1_003], "\(what): reopened after saves")
                #expect(try reopenedStore.fetchHistory(HistoryDescriptor<LogTransaction>()).map(\.transactionIdentifier)
                        == Array(1...Int64(kept + 2)), "\(what): transactions follow on")
            }
        }
    }
}
