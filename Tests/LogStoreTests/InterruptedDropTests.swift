import Foundation
import StoreProtocol
@_spi(FaultInjection) import StoreFiles
import LogStore
import StoreTestSupport
import Testing

/// Issue 11: dropping history (erase, retention, deleteHistory) first records in the identity
/// file how far it goes, then removes segment files; a crash between the two is finished on the
/// next open, so the log is the old one or the new one, never a mix.
@Suite struct InterruptedDropTests {
    /// `erase()` stopped before it removes the segment being written (as a crash would): the next
    /// open finishes it. It used to leave that segment, so part of the erased log came back.
    @Test func anEraseCutShortIsFinishedOnTheNextOpen() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 700)
        let (container, store) = try open(settings)
        try append(0..<30, perSave: 3, to: container)
        let last = try #require(try segmentFiles(directory).last)
        let path = directory.appending(path: last).path
        let hook = FileFaults.install { operation, target in
            operation == .remove && target == path ? FileFaults.Fault(code: EIO) : nil
        }
        #expect(throws: DataStoreError.self) { try store.erase() }
        FileFaults.remove(hook)
        #expect(try segmentFiles(directory) == [last], "the erase stopped before the segment being written")

        var readOnly = settings
        readOnly.allowsSave = false
        #expect(try ModelContext(try open(readOnly).0).fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 0 })) == 0,
                "a reader sees the erase")
        let (reopened, reopenedStore) = try open(settings)
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Reading>()) == 0)
        #expect(try reopenedStore.fetchHistory(HistoryDescriptor<LogTransaction>()).isEmpty)
        #expect(try segmentFiles(directory).isEmpty, "the open finished the erase")
        try append(100..<103, perSave: 3, to: reopened)
        #expect(try ModelContext(try open(settings).0).fetch(FetchDescriptor<Reading>()).map(\.value).sorted() == [100, 101, 102])
    }
}

/// Issue 11, a power-loss finding: the unlinks of dropped segments may be lost in any order (a
/// file system need not keep them in order), which leaves a gap among segments that are all
/// dropped already. The gap check used to refuse the log for it.
@Suite struct LostUnlinkTests {
    @Test func aGapAmongDroppedSegmentsIsNotDamage() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 700)
        let (container, _) = try open(settings)
        try append(0..<15, perSave: 3, to: container)   // segments 1…5, one transaction each
        #expect(try segmentFiles(directory).count == 5)
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("segment-00000000000000000001.") || $0.hasPrefix("segment-00000000000000000003.")
        }
        let copies = try kept.map { ($0, try Data(contentsOf: directory.appending(path: $0))) }
        #expect(copies.count == 4, "\(kept)")
        try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(fetchLimit: 3))
        #expect(try segmentFiles(directory).count == 2, "deleteHistory dropped segments 1…3")
        for (name, data) in copies { try data.write(to: directory.appending(path: name)) }   // two unlinks lost, one kept

        for allowsSave in [false, true] {
            var reopened = settings
            reopened.allowsSave = allowsSave
            let (container, store) = try open(reopened)
            let values = try ModelContext(container).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.value)])).map(\.value)
            #expect(values == (9..<15).map(Double.init), "allowsSave \(allowsSave)")
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>()) == 6, "allowsSave \(allowsSave)")
            #expect(try store.fetchHistory(HistoryDescriptor<LogTransaction>()).map(\.transactionIdentifier) == [4, 5],
                    "allowsSave \(allowsSave)")
        }
        #expect(try segmentFiles(directory) == ["segment-00000000000000000004.log", "segment-00000000000000000005.log"],
                "the writable open removed the dropped segments")
    }
}
