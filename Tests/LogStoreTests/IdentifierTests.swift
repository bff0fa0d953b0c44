import Foundation
import LogStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 11: a fetch returns one model per identifier, so a second record under an id that is
/// already in the log showed its values in place of the first one's. Inserting an existing id is
/// an update, which a log refuses, writing nothing.
@Suite struct IdentifierTests {
    func reading(_ id: UUID, _ value: Double) -> Reading {
        let reading = Reading(sensor: "s", timestamp: minute(Int(value)), value: value)
        reading.id = id
        return reading
    }

    @Test func anInsertOfAnIDAlreadyInTheLogIsRefusedAndChangesNothing() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 700)
        let (container, store) = try open(settings)
        let id = UUID()
        let first = ModelContext(container)
        first.insert(reading(id, 1))
        try first.save()
        try append(10..<40, perSave: 3, to: container)   // the first record is now in a sealed segment
        let files = try directoryContents(directory)

        // Through this instance, through another one (which has not read the log yet), and
        // through another process's view of it, a new context inserting the same id is refused.
        for (name, target) in [("same instance", container), ("new instance", try open(settings).0)] {
            let context = ModelContext(target)
            context.insert(reading(id, 2))
            #expect(throws: DataStoreError.self, "\(name)") { try context.save() }
            do { try context.save() } catch let error as DataStoreError {
                #expect(error.code == .unsupportedFeature && error.message.contains("already in the log"), "\(name): \(error)")
            }
        }
        #expect(try directoryContents(directory) == files, "nothing was written")
        let values = try ModelContext(container).fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.id == id })).map(\.value)
        #expect(values == [1], "the acknowledged reading reads as saved")
        #expect(try store.fetchHistory(HistoryDescriptor<LogTransaction>()).count == 11)

        // Control: a new id goes in, also after the refusals.
        let context = ModelContext(container)
        context.insert(reading(UUID(), 3))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>()) == 32)
    }

    /// The check costs no read of the log: a new instance's first save of new ids reads no segment
    /// (a Bloom filter's rare false positive may cost one), where reading the identifiers would
    /// read all eleven. The segments' filters survive the reopen in their index files.
    @Test func checkingIdentifiersReadsNoSegment() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 700)
        try append(0..<33, perSave: 3, to: try open(settings).0)
        #expect(try segmentFiles(directory).count == 11)
        let (container, store) = try open(settings)
        store.resetStatistics()
        try append(100..<103, perSave: 3, to: container)
        #expect(store.statistics.segmentsRead < 2, "\(store.statistics)")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 0 })) == 36)
    }

    /// Another process appended the id since this instance last looked: still refused.
    @Test func anIDAppendedByAnotherWriterIsRefusedToo() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 700)
        let (mine, _) = try open(settings)
        try append(0..<6, perSave: 3, to: mine)   // this instance has read the log's identifiers
        let id = UUID()
        let other = ModelContext(try open(settings).0)
        other.insert(reading(id, 50))
        try other.save()
        let context = ModelContext(mine)
        context.insert(reading(id, 51))
        #expect(throws: DataStoreError.self) { try context.save() }
        #expect(try ModelContext(mine).fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.id == id })).map(\.value) == [50])
    }
}
