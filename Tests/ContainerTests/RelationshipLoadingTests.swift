import Foundation
import MemoryStore
import StoreConformance
import StoreProtocol
import Testing

/// Related models that a store does not send along with a fetch load in batches: one store fetch
/// per destination entity and level of the graph, never one per model. A store that counts its
/// fetches tells.
@Suite struct RelationshipLoadingTests {
    struct CountingConfiguration: DataStoreConfiguration {
        typealias Store = CountingStore
        var name = "counting"
        var schema: Schema?
        var allowsSave = true
        let fetches: Locked<[String]>
    }

    final class CountingStore: DataStore {
        typealias Snapshot = DefaultSnapshot
        let configuration: CountingConfiguration
        private let inner: MemoryStore
        var identifier: String { inner.identifier }
        var schema: Schema { inner.schema }

        init(_ configuration: CountingConfiguration) throws {
            self.configuration = configuration
            inner = try MemoryStore(MemoryStoreConfiguration(schema: configuration.schema))
        }

        func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
            configuration.fetches.withLock { $0.append(T.entityName) }
            // The batches by key: without the related rows the memory store would send along
            // (RelatedRowLoadingTests counts the fetches with them).
            var request = request
            request.includesRelatedSnapshots = false
            return try inner.fetch(request)
        }

        func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
            try inner.save(request)
        }

        func erase() throws { try inner.erase() }
    }

    @Test func aGraphLoadsWithOneFetchPerEntityAndLevel() throws {
        let fetches = Locked<[String]>([])
        let container = try ModelContainer(for: Schema([SuiteVoyage.self]),
                                           configurations: [CountingConfiguration(fetches: fetches)])
        let writer = ModelContext(container)
        for number in 0..<100 {
            let voyage = SuiteVoyage(name: "V\(number)")
            voyage.bucketList = (0..<3).map { SuiteBucketItem(title: "I\(number).\($0)") }
            voyage.livingAccommodation = SuiteAccommodation(place: "P\(number)")
            writer.insert(voyage)
        }
        try writer.save()
        fetches.withLock { $0.removeAll() }

        let context = ModelContext(container)
        let voyages = try context.fetch(FetchDescriptor<SuiteVoyage>())
        #expect(voyages.count == 100)
        #expect(voyages.allSatisfy { voyage in voyage.bucketList.count == 3 && voyage.bucketList.allSatisfy { $0.voyage === voyage } })
        #expect(voyages.allSatisfy { $0.livingAccommodation?.voyage === $0 })
        // The voyages, then their items and accommodations (level one); their inverses name
        // voyages already held, so there is no level two.
        #expect(fetches.withLock { $0 }.sorted() == ["SuiteAccommodation", "SuiteBucketItem", "SuiteVoyage"])

        // Items fetched first load their voyages (level one), whose other relationships are the
        // next level: accommodations, and the items not fetched yet.
        fetches.withLock { $0.removeAll() }
        let other = ModelContext(container)
        let items = try other.fetch(FetchDescriptor<SuiteBucketItem>(predicate: #Predicate { $0.title == "I7.1" }))
        #expect(items.first?.voyage?.bucketList.map(\.title) == ["I7.0", "I7.1", "I7.2"])
        #expect(fetches.withLock { $0 } == ["SuiteBucketItem", "SuiteVoyage", "SuiteAccommodation", "SuiteBucketItem"])
    }
}
