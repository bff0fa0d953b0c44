import DataStores
import PostgresStore
import Testing

/// The sample of the DocC catalog's overview (Tools/docs/check-samples.py finds it here), opened
/// on the test server instead of `db.internal`.
@Suite("Documentation sample", .enabled(if: TestServer.isConfigured))
struct DocumentationSampleTests {
    @Model final class Trip {
        var name = "Iceland"
        init() {}
    }

    static func overviewSample() throws -> ModelContainer {
        let container = try ModelContainer(
            for: Trip.self, location: "postgres://app:secret@db.internal:5432/trips?schema=trips",
            registry: StoreRegistry(PostgresStoreConfiguration.self))
        return container
    }

    @Test("The overview's location string opens a container (on the test server)")
    func overviewLocationOpens() throws {
        let url = try #require(TestServer.url)
        let container = try ModelContainer(for: Trip.self, location: url + "?schema=" + TestServer.freshNamespace(),
                                           registry: StoreRegistry(PostgresStoreConfiguration.self))
        let context = ModelContext(container)
        context.insert(Trip())
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }
}
