import DataStores
import LogStore
import MemoryStore
import StoreTestSupport
import Testing

// The typical ModelConfiguration and SwiftDataError calls, as the docs quote them, each run here.

enum ConfigurationSamples {
    @Model final class Trip {
        var name: String
        var bucketList: [BucketListItem] = []
        init(name: String) { self.name = name }
    }

    @Model final class BucketListItem {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }

    @Model final class Reading {
        var value: Double
        var takenAt: Date
        init(value: Double, takenAt: Date) {
            self.value = value
            self.takenAt = takenAt
        }
    }

    /// The default store: compiled here, run by StoreTestHelper processes under a temporary
    /// XDG_DATA_HOME (DefaultStoreTests), so that a test run leaves nothing in the home folder.
    static func openTheDefaultStore() throws -> ModelContext {
        let container = try ModelContainer(for: Trip.self)
        let context = ModelContext(container)
        return context
    }
}

@Suite struct ModelConfigurationSampleTests {
    typealias Trip = ConfigurationSamples.Trip
    typealias BucketListItem = ConfigurationSamples.BucketListItem
    typealias Reading = ConfigurationSamples.Reading

    @Test func inMemory() throws {
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        #expect(container.schema.entities.count == 2, "BucketListItem comes with Trip")
    }

    @Test func atAURL() throws {
        let directory = try temporaryDirectory()
        let configuration = ModelConfiguration(url: directory.appending(path: "trips.store"))
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        context.insert(Trip(name: "Iceland"))
        try context.save()

        let readOnly = ModelConfiguration(url: directory.appending(path: "trips.store"), allowsSave: false)
        let viewer = try ModelContainer(for: Trip.self, configurations: readOnly)
        #expect(try ModelContext(viewer).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Iceland"])
    }

    @Test func twoConfigurations() throws {
        let directory = try temporaryDirectory()
        let container = try ModelContainer(
            for: Trip.self, Reading.self,
            configurations: ModelConfiguration("trips", schema: Schema([Trip.self]), url: directory.appending(path: "trips.store")),
            ModelConfiguration("readings", schema: Schema([Reading.self]), isStoredInMemoryOnly: true))
        #expect(container.stores.count == 2)
        #expect(try container.store(for: Reading.self).configuration.name == "readings")
    }

    @Test func aRegisteredBackend() throws {
        let directory = try temporaryDirectory()
        ModelConfiguration.storeRegistry.register(LogStoreConfiguration.self)
        let readings = ModelConfiguration(url: directory.appending(path: "readings.log"))
        let container = try ModelContainer(for: Reading.self, configurations: readings)
        #expect(container.stores.first is LogStore)
    }

    @Test func anExpiredHistoryToken() throws {
        let container = try ModelContainer(for: Trip.self,
            configurations: MemoryStoreConfiguration(historyRetention: .transactions(1)))
        let context = ModelContext(container)
        context.insert(Trip(name: "Oslo"))
        try context.save()
        var token: DefaultHistoryToken? = try container.currentHistoryToken()
        for name in ["Bergen", "Tromsø"] {
            context.insert(Trip(name: name))
            try context.save()
        }

        do {
            let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
            token = transactions.last?.token ?? token
        } catch SwiftDataError.historyTokenExpired {
            token = nil   // history was deleted: re-read the data, then follow from the current token
        }
        #expect(token == nil)
    }
}
