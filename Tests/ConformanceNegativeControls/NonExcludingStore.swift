import Foundation
import MemoryStore
import StoreProtocol

struct NonExcludingStoreConfiguration: DataStoreConfiguration {
    typealias Store = NonExcludingStore
    var name = "non-excluding"
    var schema: Schema?
    var allowsSave = true
    /// `false`: the flaw, a body run without taking anything; `true`: the wrapped store's own
    /// access, the control's control.
    let excludes: Bool
    /// The shared memory store wrapped: opening the configuration twice opens one store.
    var sharedName = UUID().uuidString
}

/// A ``MemoryStore`` whose exclusive access does not exclude: `withExclusiveAccess` runs its body
/// at once, whoever else is inside, as a backend would whose lock is taken on a connection or
/// file of each call's own (a new file descriptor's `fcntl` lock in one process, a session lock
/// on a pooled connection that another caller reuses).
final class NonExcludingStore: DataStore, ExclusiveAccessProviding {
    typealias Snapshot = DefaultSnapshot

    let configuration: NonExcludingStoreConfiguration
    private let inner: MemoryStore
    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }

    init(_ configuration: NonExcludingStoreConfiguration) throws {
        self.configuration = configuration
        inner = try MemoryStore(MemoryStoreConfiguration(name: configuration.sharedName, schema: configuration.schema, isShared: true))
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try inner.fetch(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try inner.save(request)
    }

    func erase() throws { try inner.erase() }

    func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result {
        configuration.excludes ? try inner.withExclusiveAccess(body) : try body()
    }
}
