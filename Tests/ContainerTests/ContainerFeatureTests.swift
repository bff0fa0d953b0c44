import Foundation
import JSONStore
import LogStore
import MemoryStore
import DataStores
import StoreFiles
import StoreTestSupport
import Testing

@Model final class Place {
    var name: String
    init(_ name: String) { self.name = name }
}

@Model final class Reading {
    var timestamp: Date
    var value: Double
    init(_ value: Double) {
        timestamp = Date()
        self.value = value
    }
}

func save(_ models: [any PersistentModel], to container: ModelContainer, author: String? = nil) throws {
    let context = ModelContext(container)
    context.author = author
    for model in models {
        switch model {
        case let place as Place: context.insert(place)
        case let reading as Reading: context.insert(reading)
        default: break
        }
    }
    try context.save()
}

@Suite struct RegistryTests {
    let registry = StoreRegistry(JSONStoreConfiguration.self, LogStoreConfiguration.self, MemoryStoreConfiguration.self)

    @Test func aThirdPartySchemeIsOneCall() throws {
        registry.register(scheme: "test", help: "test:NAME — a test backend") { location in
            MemoryStoreConfiguration(name: "test-" + location.path, isShared: true)
        }
        #expect(registry.schemes == ["json", "log", "memory", "test"])
        let container = try ModelContainer(for: Place.self, location: "test:one", registry: registry)
        try save([Place("Oslo")], to: container)
        let again = try ModelContainer(for: Place.self, location: "test:one", registry: registry)
        #expect(try ModelContext(again).fetch(FetchDescriptor<Place>()).map(\.name) == ["Oslo"])
    }

    @Test func locationsAreParsedWithTheirOptions() throws {
        let directory = try temporaryDirectory().path
        let json = try #require(try registry.configuration(for: "json:\(directory)/a.json?retention-transactions=5&retention-age=2d") as? JSONStoreConfiguration)
        #expect(json.url.path == "\(directory)/a.json")
        #expect(json.historyRetention == HistoryRetention(maximumTransactions: 5, maximumAge: 172_800))
        let log = try #require(try registry.configuration(for: "log:\(directory)/log?retention-bytes=1000&segment-size=512") as? LogStoreConfiguration)
        #expect(log.historyRetention.maximumBytes == 1_000 && log.segmentSize == 512)
    }

    @Test(arguments: [
        ("nonsense", "is not a store location"),
        ("xml:/tmp/a.xml", "Known schemes"),
        ("json:", "names no path"),
        ("json:/tmp/a.json?retention=5", "unknown option 'retention'"),
        ("log:/tmp/l?retention-age=soon", "must be a duration"),
        ("json:/tmp/a.json?flag", "is not NAME=VALUE"),
    ])
    func badLocationsAreTypedErrorsSayingWhatIsWrong(_ location: String, _ expected: String) {
        do {
            _ = try registry.configuration(for: location)
            Issue.record("\(location) must be refused")
        } catch let error as DataStoreError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(expected), "\(error.message)")
        } catch {
            Issue.record("expected a DataStoreError, got \(error)")
        }
    }
}

@Suite struct MultiStoreHistoryTests {
    /// Places in a JSON store, readings in a log store: one token resumes both, across reopening.
    @Test func oneTokenResumesAJSONStoreAndALogTogether() throws {
        let directory = try temporaryDirectory()
        func open() throws -> ModelContainer {
            try ModelContainer(for: Schema(Place.self, Reading.self), configurations: [
                JSONStoreConfiguration(url: directory.appending(path: "places.json"), schema: Schema(Place.self)),
                LogStoreConfiguration(directory: directory.appending(path: "readings"), schema: Schema(Reading.self),
                                      timestamps: [LogTimestamp(\Reading.timestamp)]),
            ])
        }
        let container = try open()
        try save([Place("Oslo")], to: container)
        try save([Reading(1), Reading(2)], to: container)
        let first = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(first.count == 2)
        let token = try #require(first.last?.token)
        #expect(token.positions.count == 2, "the token holds a position in both stores")
        try save([Reading(3)], to: container)
        try save([Place("Bergen")], to: container)

        let reopened = try open()
        let later = try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
        #expect(later.map { $0.changes.first?.changedPersistentIdentifier.entityName } == ["Reading", "Place"])
        let final = try #require(later.last?.token)
        #expect(try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: final)).isEmpty)
    }
}

@Suite struct HistoryUpdatesTests {
    /// The stream delivers a save made by another process into the same JSON store.
    @Test func theWatchStreamSeesAnotherProcessSave() async throws {
        let url = try temporaryDirectory().appending(path: "watched.json")
        let container = try ModelContainer(for: Place.self, configurations: JSONStoreConfiguration(url: url))
        let start = try container.currentHistoryToken()
        let writer = try ChildProcess(["write", "json", url.path, "other-process", "1", "1"])
        #expect(writer.finish() == 0)
        let author = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                for try await transaction in container.historyUpdates(after: start) { return transaction.author }
                return nil
            }
            group.addTask {
                // A time limit for a broken stream, not synchronisation: the save is already on disk.
                try await Task.sleep(for: .seconds(30))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        #expect(author == "other-process")
    }

    @Test func cancellingTheConsumerEndsTheStream() async throws {
        let container = try ModelContainer(for: Place.self, configurations: MemoryStoreConfiguration())
        let consumer = Task {
            var count = 0
            for try await _ in container.historyUpdates() { count += 1 }
            return count
        }
        consumer.cancel()
        #expect(try await consumer.value == 0)
    }
}

@Suite struct HistoryConsumerTests {
    @Test func onlyWhatEveryConsumerHasReadIsDeleted() throws {
        let container = try ModelContainer(for: Place.self, configurations: MemoryStoreConfiguration())
        for index in 0..<6 { try save([Place("p\(index)")], to: container) }
        let tokens = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.token)
        let consumers = HistoryConsumers()
        try container.deleteHistoryReadByAllConsumers(consumers)
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 6, "no consumers: nothing deleted")

        try consumers.record(tokens[4], for: "app")
        try consumers.record(tokens[2], for: "widget")
        try container.deleteHistoryReadByAllConsumers(consumers)
        let left = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(left.map(\.transactionIdentifier) == [4, 5, 6], "kept what the widget has not read")
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: tokens[2])).count == 3,
                "the slowest consumer's token still works")
        #expect(throws: HistoryError(.historyTokenExpired, "")) {
            try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: tokens[0]))
        }
    }

    @Test func consumersAreSharedThroughTheirFile() throws {
        let url = try temporaryDirectory().appending(path: "consumers.json")
        let token = DefaultHistoryToken(storeIdentifier: "s", transactionNumber: 3)
        try HistoryConsumers(url: url).record(token, for: "app")
        #expect(try HistoryConsumers(url: url).token(for: "app") == token)
        try Data("nope".utf8).write(to: url)
        #expect(throws: DataStoreError(.corruptStore, "")) { try HistoryConsumers(url: url).tokens() }
    }
}
