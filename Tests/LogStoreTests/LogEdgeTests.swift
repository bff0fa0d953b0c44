import Foundation
import LogStore
import StoreProtocol
import StoreTestSupport
import Testing
@_spi(FaultInjection) import StoreFiles

/// Cases for what the mutation tool found unchecked (issue 19): the segment being written
/// survives any retention, and one save cannot insert an identifier twice.
@Suite struct LogEdgeTests {
    /// A log far over its byte limit keeps the segment it writes to: every save in it reads back.
    @Test func retentionNeverDropsTheSegmentBeingWritten() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 1 << 20, historyRetention: .bytes(1))
        do {
            let (container, _) = try open(settings)
            for index in 0..<3 {
                let context = ModelContext(container)
                context.insert(Reading(sensor: "s\(index)", timestamp: minute(index), value: Double(index)))
                try context.save()
                #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>()) == index + 1)
            }
        }
        let (reopened, _) = try open(settings)
        let sensors = try ModelContext(reopened).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.timestamp)])).map(\.sensor)
        #expect(sensors == ["s0", "s1", "s2"])
    }

    /// A request that inserts one identifier twice (a backend's caller need not be a context)
    /// is refused whole, and nothing of it is written.
    @Test func aSaveInsertingOneIdentifierTwiceIsRefusedWhole() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory)
        let (container, store) = try open(settings)
        let reading = Reading(sensor: "a", timestamp: minute(1), value: 1)
        let values = try reading.storedValues()
        let snapshot = DefaultSnapshot(persistentIdentifier: reading.persistentModelID, values: values)
        let other = Reading(sensor: "b", timestamp: minute(2), value: 2)
        let otherSnapshot = DefaultSnapshot(persistentIdentifier: other.persistentModelID,
                                            values: try other.storedValues())
        let error = try #require(throws: DataStoreError.self) {
            try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [otherSnapshot, snapshot, snapshot]))
        }
        #expect(error.code == .unsupportedFeature)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>()) == 0)
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }

    #if DEBUG
    /// A writer that fails between sealing a full segment and creating the next leaves the sealed
    /// segment last. Another writer that already knew that segment, unsealed, must see the seal
    /// when it catches up, and append to a new segment: never to the sealed one, which would make
    /// the log unopenable ("bigger than it was sealed at"). The CI two-writer stress found this.
    @Test func aSealByAnotherWriterIsSeenBeforeAppending() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 1_000)
        let (first, _) = try open(settings)
        let (second, _) = try open(settings)
        let early = ModelContext(second)
        early.insert(Reading(sensor: "b1", timestamp: minute(1), value: 1))
        try early.save()

        // The first writer's save overflows the segment: it seals it, then cannot create the next.
        // Scoped to this test's directory: the hook sees every test's files.
        let hook = FileFaults.install { operation, path in
            operation == .create && path.hasPrefix(directory.path + "/") && path.hasSuffix(".log") ? FileFaults.Fault(code: EIO) : nil
        }
        let big = ModelContext(first)
        big.insert(Reading(sensor: String(repeating: "x", count: 900), timestamp: minute(2), value: 2))
        #expect(throws: DataStoreError.self) { try big.save() }
        FileFaults.remove(hook)

        let late = ModelContext(second)
        late.insert(Reading(sensor: "b2", timestamp: minute(3), value: 3))
        try late.save()

        let (reopened, _) = try open(settings)
        let sensors = try ModelContext(reopened).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.timestamp)])).map(\.sensor)
        #expect(sensors == ["b1", "b2"])
    }
    #endif
}
