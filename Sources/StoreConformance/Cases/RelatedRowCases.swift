import Foundation
import StoreProtocol

/// The related rows a store may send along with a fetch (`DataStoreFetchResult.relatedSnapshots`,
/// asked for with `DataStoreFetchRequest.includesRelatedSnapshots`): the context registers them
/// as if it had fetched them by key, so each must be a row the store holds, under its own
/// identifier, with the values a fetch by key returns now. Sending none is always allowed.
enum RelatedRowCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "related rows", name: "relatedRowsAreTheStoredRowsUnderTheirOwnIdentifiers") { target in
            let container = try target.makeContainer()
            let iceland = try RelationshipCases.saveVoyage("Iceland", items: ["Geysir", "Glacier", "Lagoon"], place: "Hotel Borg",
                                                           into: container)
            try RelationshipCases.saveVoyage("Chile", items: ["Andes"], place: "Casa", into: container)
            _ = try RelationshipCases.saveTaggedVoyage(into: container)
            try checkRelatedRows(in: container, "after the inserts")
            guard target.capabilities.contains(.updates) else { return }
            // A row changed since: sent as it is now, not as it was first read.
            let context = ModelContext(container)
            let voyage = try require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first { $0.id == iceland.id }, "Iceland")
            let glacier = try require(voyage.bucketList.first { $0.title == "Glacier" }, "Glacier")
            glacier.title = "Glacier walk"
            voyage.livingAccommodation?.place = "Hotel Holt"
            try context.save()
            try checkRelatedRows(in: container, "after an update of related models")
            let fresh = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>()).first { $0.id == iceland.id },
                                    "Iceland in a fresh context")
            try checkEqual(fresh.bucketList.map(\.title), ["Geysir", "Glacier walk", "Lagoon"], "the items a fresh fetch loads")
            try checkEqual(fresh.livingAccommodation?.place, "Hotel Holt", "the accommodation a fresh fetch loads")
        },
    ]

    /// Fetches the voyages and the items from the store with related rows asked for, and checks
    /// every related row it sends against the rows it holds.
    private static func checkRelatedRows(in container: ModelContainer, _ when: String) throws {
        let store = try require(container.stores.first, "the store")
        var stored: [PersistentIdentifier: [String: SnapshotValue]] = [:]
        for entity in container.schema.entities {
            for row in try storedRows(entity.modelType, of: store) { stored[row.persistentIdentifier] = row.values }
        }
        for related in [try relatedRows(SuiteVoyage.self, of: store), try relatedRows(SuiteBucketItem.self, of: store)] {
            for (key, row) in related.sorted(by: { "\($0.key)" < "\($1.key)" }) {
                try checkEqual(row.persistentIdentifier, key, "the identifier of the related row sent under \(key) \(when)")
                let values = try require(stored[key], "a stored row for the related row \(key) \(when)")
                try check(row.values == values,
                          "the related row of \(key) \(when) holds \(row.values.sorted { $0.key < $1.key }), "
                          + "but the store holds \(values.sorted { $0.key < $1.key })")
            }
        }
    }

    /// Every row of `type` the store holds (no related rows asked for).
    private static func storedRows<T: PersistentModel>(_ type: T.Type, of store: any DataStore) throws -> [DefaultSnapshot] {
        func run<S: DataStore>(_ store: S) throws -> [DefaultSnapshot] {
            try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>())).fetchedSnapshots.map {
                DefaultSnapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values)
            }
        }
        return try run(store)
    }

    /// The related rows the store sends with a fetch of every `T`; none when it prefers the
    /// context to filter or sort (allowed).
    private static func relatedRows<T: PersistentModel>(_ type: T.Type, of store: any DataStore) throws
        -> [PersistentIdentifier: DefaultSnapshot] {
        func run<S: DataStore>(_ store: S) throws -> [PersistentIdentifier: DefaultSnapshot] {
            do {
                let result = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>(), includesRelatedSnapshots: true))
                return result.relatedSnapshots.mapValues { DefaultSnapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values) }
            } catch let error as DataStoreError where error.code == .preferInMemoryFilter || error.code == .preferInMemorySort {
                return [:]
            }
        }
        return try run(store)
    }
}
