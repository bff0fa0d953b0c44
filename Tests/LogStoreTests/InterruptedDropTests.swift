import Foundation
@_spi(FaultInjection) import StoreProtocol
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
