import Foundation
import LogStore
import StoreBuildingBlocks
import StoreFiles
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 28, defects 11 and 12 for logs: a forged counter in the identity file or a segment's
/// name, and a FIFO where the log keeps a file, are typed errors, at once, changing nothing.
@Suite struct DamagedLogFileTests {
    /// A log of three saves.
    func log() throws -> URL {
        let directory = try temporaryDirectory()
        try append(0..<3, perSave: 1, to: try open(configuration(directory)).0)
        return directory
    }

    /// store.json with `change` made to its fields and its checksum made to hold again, as a forger does.
    func forgeIdentity(in directory: URL, _ change: (inout [String: SnapshotValue]) -> Void) throws {
        let url = directory.appending(path: "store.json")
        guard case .object(var fields) = try SnapshotJSON.parse(try Data(contentsOf: url)) else { throw CocoaError(.fileReadCorruptFile) }
        fields.removeValue(forKey: "checksum")
        change(&fields)
        fields["checksum"] = .int(Int64(CRC32.checksum(try SnapshotJSON.encode(.object(fields)))))
        try SnapshotJSON.encode(.object(fields)).write(to: url)
    }

    /// Opening, writable and read-only, fails with `code` and words naming what is wrong, and
    /// changes no file.
    func expectRefused(_ directory: URL, _ code: DataStoreError.Code, _ words: String, _ what: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try directoryContents(directory)
        for allowsSave in [true, false] {
            var settings = configuration(directory)
            settings.allowsSave = allowsSave
            do {
                _ = try open(settings)
                Issue.record("\(what), allowsSave \(allowsSave): the log opened", sourceLocation: sourceLocation)
            } catch let error as DataStoreError {
                #expect(error.code == code && error.message.contains(words), "\(what): \(error)", sourceLocation: sourceLocation)
            }
            #expect(try directoryContents(directory) == before, "\(what): the files are untouched", sourceLocation: sourceLocation)
        }
    }

    /// A forged `droppedThrough` of `Int64.max` used to open, and the next save trapped on
    /// `lastTransaction + 1`.
    @Test(arguments: [Int64.max, -1])
    func anImpossibleDroppedThroughIsCorruption(_ value: Int64) throws {
        let directory = try log()
        try forgeIdentity(in: directory) { $0["droppedThrough"] = .int(value) }
        try expectRefused(directory, .corruptStore, "droppedThrough \(value)", "droppedThrough \(value)")
    }

    /// A segment named for transaction 0, or not for a number, used to be read or passed over.
    @Test(arguments: ["segment-00000000000000000000.log", "segment-0000000000000000000x.log"])
    func aSegmentNamedForNoTransactionIsCorruption(_ name: String) throws {
        let directory = try log()
        try Data().write(to: directory.appending(path: name))
        try expectRefused(directory, .corruptStore, name, name)
    }

    /// Issue 28, defect 13, for logs: the last record's length changed (shorter or longer), the
    /// record otherwise whole. It used to look like a torn write, and a writable open cut an
    /// acknowledged save; its checksum holds over the bytes to the end, so it is damage now.
    @Test(arguments: [-1, 1, 1 << 20])
    func aChangedLengthInTheLastRecordIsCorruptionNotATornWrite(_ change: Int) throws {
        let directory = try log()
        let segment = directory.appending(path: "segment-00000000000000000001.log")
        var data = try Data(contentsOf: segment)
        let last = try #require(DamagedFrameTests.recordOffsets(data).last)
        let length = UInt32(Int(data[last]) | Int(data[last + 1]) << 8 | Int(data[last + 2]) << 16 | Int(data[last + 3]) << 24)
        withUnsafeBytes(of: UInt32(Int(length) + change).littleEndian) { data.replaceSubrange(last..<last + 4, with: $0) }
        try data.write(to: segment)
        try expectRefused(directory, .corruptStore, "byte \(last)", "length \(change)")
        var skipping = configuration(directory, skipsDamagedRecords: true)
        skipping.allowsSave = false
        #expect(try ModelContext(try open(skipping).0).fetchCount(FetchDescriptor<Reading>()) == 2, "read around it on request")
    }

    /// A FIFO where the log keeps its identity file or its lock file used to block the open for
    /// good; one as the segment being written, the next save. Now each is a typed error at once.
    @Test(arguments: ["store.json", "lock", "segment-00000000000000000001.log"])
    func aFIFOInTheLogIsATypedErrorAtOnce(_ name: String) throws {
        let directory = try log()
        let fifo = directory.appending(path: name)
        try FileManager.default.removeItem(at: fifo)
        try makeFIFO(at: fifo)
        let outcome = outcomeWithin(10, releasing: fifo) {
            let (container, _) = try open(configuration(directory))
            try append(3..<4, perSave: 1, to: container)
        }
        switch outcome {
        case .hung: Issue.record("\(name): blocked on the FIFO")
        case .returned: Issue.record("\(name): the log opened and saved")
        case .threw(let error):
            let error = try #require(error as? DataStoreError, "\(error)")
            #expect(error.code == .invalidConfiguration && error.message.contains("FIFO") && error.message.contains(fifo.path),
                    "\(name): \(error)")
        }
    }

    /// A directory where the log keeps its lock file is `.invalidConfiguration` naming it, for a
    /// writable open as for a read-only one (found by an adversary: the writable open's
    /// `open(2)` failed with `EISDIR`, which came back as an `.ioFailure`).
    @Test func aDirectoryWhereTheLockBelongsIsAConfigurationError() throws {
        let directory = try log()
        let lock = directory.appending(path: "lock")
        try? FileManager.default.removeItem(at: lock)
        try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: false)
        try expectRefused(directory, .invalidConfiguration, "\(lock.path) is a directory", "a directory at lock")
    }
}
