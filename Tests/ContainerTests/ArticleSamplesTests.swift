import DataStores
import JSONStore
import LogStore
import MemoryStore
import StoreTestSupport
import Testing

// The shorter samples of the StoreProtocol articles, each held here as the article writes it
// (`Tools/docs/check-samples.py` checks that every sample is in a test, line for line) and run:
// a renamed API breaks this build, not the reader. The longer ones have tests of their own
// (GettingStartedTests, MigrationExampleTests, SQLRenderingExampleTests, TinyStoreExampleTests).

/// The articles' models, in a namespace of their own (other tests have a `Trip`).
enum ArticleSamples {
    @Model
    final class Trip {
        @Attribute(.preserveValueOnDeletion)
        var name: String
        var destination: String
        var startDate: Date
        var endDate: Date

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    @Model
    final class Reading {
        var timestamp: Date
        var celsius: Double

        init(timestamp: Date, celsius: Double) {
            self.timestamp = timestamp
            self.celsius = celsius
        }
    }

    /// A third-party configuration, as the registry sample names it.
    typealias MyStoreConfiguration = MemoryStoreConfiguration

    static let start = Date(timeIntervalSince1970: 1_780_000_000)
    static let end = Date(timeIntervalSince1970: 1_780_003_600)

    /// StoreProtocol.md, the landing page.
    static func landingPage() throws -> [String] {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        context.insert(Trip(name: "Iceland", destination: "Reykjavík", startDate: start, endDate: end))
        try context.save()
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
        return trips.map(\.name)
    }

    /// ChoosingABackend.md, "Configurations".
    static func registry(in directory: URL) throws -> ModelContainer {
        let registry = StoreRegistry(JSONStoreConfiguration.self, LogStoreConfiguration.self, MemoryStoreConfiguration.self)
        registry.register(MyStoreConfiguration.self)     // conforms to LocatableStoreConfiguration
        let container = try ModelContainer(for: Trip.self, location: "json:\(directory.path)/trips.json?retention-age=30d",
                                           registry: registry)
        return container
    }

    /// ChoosingABackend.md, "JSONStore".
    static func jsonStore(in directory: URL) throws -> ModelContainer {
        let container = try ModelContainer(for: Trip.self,
                                           configurations: JSONStoreConfiguration(url: directory.appending(path: "trips.json")))
        return container
    }

    /// ChoosingABackend.md, "LogStore": the readings of the hour from `start`.
    static func logStore(in directory: URL, seed: [Reading]) throws -> [Reading] {
        let seeding = ModelContext(try ModelContainer(for: Reading.self, configurations: LogStoreConfiguration(
            directory: directory.appending(path: "readings"), timestamps: [LogTimestamp(\Reading.timestamp)])))
        for reading in seed { seeding.insert(reading) }
        try seeding.save()

        let log = LogStoreConfiguration(directory: directory.appending(path: "readings"),
                                        timestamps: [LogTimestamp(\Reading.timestamp)],
                                        historyRetention: .age(30 * 86_400))
        let context = ModelContext(try ModelContainer(for: Reading.self, configurations: log))
        let lastHour = try context.fetch(FetchDescriptor<Reading>(
            predicate: #Predicate { $0.timestamp >= start && $0.timestamp < end }))
        return lastHour
    }

    /// TrackingChangesWithHistory.md: what the widget changed after `savedToken`, printed, and
    /// the token to resume from.
    static func history(in context: ModelContext, after token: DefaultHistoryToken?) throws -> (printed: [String], token: DefaultHistoryToken?) {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        var savedToken = token

        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(after: savedToken)
        descriptor.predicate = #Predicate { $0.author == "widget" }
        for transaction in try context.fetchHistory(descriptor) {
            for change in transaction.changes {
                switch change {
                case .insert(let insert as DefaultHistoryInsert<Trip>): print("new trip", insert.changedPersistentIdentifier)
                case .update(let update as DefaultHistoryUpdate<Trip>):
                    if update.updatedAttributes.contains(where: { $0 == \Trip.destination }) { print("new destination") }
                case .delete(let delete as DefaultHistoryDelete<Trip>): print(delete.tombstone[\.name] ?? "?")
                default: break
                }
            }
            savedToken = transaction.token       // Codable: persist it between runs
        }
        return (printed, savedToken)
    }
}

@Suite struct ArticleSamplesTests {
    typealias Trip = ArticleSamples.Trip

    @Test func theLandingPageSavesAndFetches() throws {
        #expect(try ArticleSamples.landingPage() == ["Iceland"])
    }

    @Test func theRegistrySampleOpensAJSONStoreWithItsRetention() throws {
        let directory = try temporaryDirectory()
        let container = try ArticleSamples.registry(in: directory)
        let context = ModelContext(container)
        context.insert(Trip(name: "Oslo", destination: "Oslo", startDate: ArticleSamples.start, endDate: ArticleSamples.end))
        try context.save()
        #expect(FileManager.default.fileExists(atPath: directory.appending(path: "trips.json").path))
        let reopened = try ArticleSamples.jsonStore(in: directory)
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Oslo"])
    }

    @Test func theLogSampleReadsTheHourItBounds() throws {
        let readings = [-1_800.0, 0, 1_800, 3_599, 3_600, 7_200].map {
            ArticleSamples.Reading(timestamp: ArticleSamples.start.addingTimeInterval($0), celsius: $0 / 100)
        }
        let lastHour = try ArticleSamples.logStore(in: try temporaryDirectory(), seed: readings)
        #expect(lastHour.map(\.celsius).sorted() == [0, 18, 35.99])
    }

    @Test func theHistorySampleReadsTheWidgetsChangesAndResumes() throws {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        let app = ModelContext(container)
        app.author = "app"
        let widget = ModelContext(container)
        widget.author = "widget"
        let start = try container.currentHistoryToken()

        let oslo = Trip(name: "Oslo", destination: "Oslo", startDate: ArticleSamples.start, endDate: ArticleSamples.end)
        widget.insert(oslo)
        try widget.save()
        app.insert(Trip(name: "Rome", destination: "Rome", startDate: ArticleSamples.start, endDate: ArticleSamples.end))
        try app.save()
        oslo.destination = "Bergen"
        try widget.save()
        widget.delete(oslo)
        try widget.save()

        let (printed, token) = try ArticleSamples.history(in: app, after: start)
        #expect(printed == ["new trip \(oslo.persistentModelID)", "new destination", "Oslo"])
        let (again, _) = try ArticleSamples.history(in: app, after: token)
        #expect(again.isEmpty, "the saved token resumes after what was read")
    }
}
