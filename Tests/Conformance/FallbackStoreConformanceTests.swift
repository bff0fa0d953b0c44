import Foundation
import MemoryStore
import StoreConformance
import StoreProtocol
import Testing

/// A store that answers no predicate and no sort itself: it throws `preferInMemoryFilter` for a
/// fetch with a predicate and `preferInMemorySort` for a sorted one, as the contract lets a
/// backend do. The suite over it checks the context's in-memory fallback (`SnapshotQuery`), which
/// the backends here, answering every query themselves, never reach.
struct FallbackStoreConfiguration: DataStoreConfiguration {
    typealias Store = FallbackStore
    var name = "fallback"
    var schema: Schema?
    var allowsSave = true
}

final class FallbackStore: DataStore, HistoryProviding {
    typealias Snapshot = DefaultSnapshot
    typealias HistoryType = DefaultHistoryTransaction

    let configuration: FallbackStoreConfiguration
    private let inner: MemoryStore
    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }

    init(_ configuration: FallbackStoreConfiguration) throws {
        self.configuration = configuration
        inner = try MemoryStore(MemoryStoreConfiguration(schema: configuration.schema))
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        if request.descriptor.predicate != nil {
            throw DataStoreError(.preferInMemoryFilter, "This store filters nothing itself.")
        }
        if !request.descriptor.sortBy.isEmpty {
            throw DataStoreError(.preferInMemorySort, "This store sorts nothing itself.")
        }
        return try inner.fetch(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try inner.save(request)
    }

    func erase() throws { try inner.erase() }

    func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try inner.fetchHistory(descriptor)
    }

    func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws { try inner.deleteHistory(descriptor) }

    func currentHistoryToken() throws -> DefaultHistoryToken? { try inner.currentHistoryToken() }
}

let fallbackTarget = ConformanceTarget(name: "In-memory fallback", capabilities: [.history, .updates, .historyDeletion]) {
    FallbackStoreConfiguration()
}

@Test("In-memory fallback conformance", arguments: ConformanceSuite.cases(for: fallbackTarget))
func fallbackStoreConformance(_ check: ConformanceCase) async throws {
    try await check.run(fallbackTarget)
}
