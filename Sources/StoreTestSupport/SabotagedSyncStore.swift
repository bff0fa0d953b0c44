import Foundation
import StoreProtocol

/// A flaw a replicator (or the store under it) could have, planted by wrapping a store: the
/// sync harnesses' negative controls, which each harness must report as a failure.
public enum SyncSabotage: String, Sendable, CaseIterable {
    /// The replicator's saves are split: the data first, then the sync-model rows in a save of
    /// their own; the process kills itself (SIGKILL) between the two, the crash a separate save
    /// of the position exposes.
    case splitsSyncStateAndCrashes = "splits-sync-state"
    /// History read after a token whose history was deleted returns what is left instead of
    /// throwing `historyTokenExpired`: the replicator cannot see the gap.
    case neverExpiresTokens = "never-expires-tokens"
}

/// Opens `inner`'s store behind a ``SyncSabotage``.
public struct SabotagedStoreConfiguration<Inner: DataStoreConfiguration>: DataStoreConfiguration
where Inner.Store: HistoryProviding<DefaultHistoryTransaction> {
    public typealias Store = SabotagedStore<Inner>
    public var inner: Inner
    public let sabotage: SyncSabotage

    public init(_ inner: Inner, sabotage: SyncSabotage) {
        self.inner = inner
        self.sabotage = sabotage
    }

    public var name: String { inner.name }
    public var schema: Schema? {
        get { inner.schema }
        set { inner.schema = newValue }
    }
    public var allowsSave: Bool {
        get { inner.allowsSave }
        set { inner.allowsSave = newValue }
    }
}

/// A store that forwards everything to another one except what its ``SyncSabotage`` breaks.
/// The sync models are told apart from the app's by name: every entity that is not one of
/// ``syncTestModelTypes`` is the replicator's.
public final class SabotagedStore<Inner: DataStoreConfiguration>: DataStore, HistoryProviding, ExclusiveAccessProviding
where Inner.Store: HistoryProviding<DefaultHistoryTransaction> {
    public typealias Snapshot = Inner.Store.Snapshot

    public let configuration: SabotagedStoreConfiguration<Inner>
    private let inner: Inner.Store
    private let appEntities = Set(Schema(syncTestModelTypes).entities.map(\.name))

    public init(_ configuration: SabotagedStoreConfiguration<Inner>) throws {
        self.configuration = configuration
        inner = try Inner.Store(configuration.inner)
    }

    public var identifier: String { inner.identifier }
    public var schema: Schema { inner.schema }
    public var recordedSchema: StoredSchema? { inner.recordedSchema }

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot> {
        try inner.fetch(request)
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int { try inner.fetchCount(request) }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try inner.fetchIdentifiers(request)
    }

    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws { try inner.delete(request) }
    public func erase() throws { try inner.erase() }
    public func migrate(_ request: DataStoreMigrationRequest) throws { try inner.migrate(request) }

    public func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot> {
        guard request.editingState.author?.hasPrefix("StoreSync") == true, configuration.sabotage == .splitsSyncStateAndCrashes else {
            return try inner.save(request)
        }
        let (data, state) = split(request)
        let result = try inner.save(data)
        if !state.isEmpty { kill(getpid(), SIGKILL) }
        return result
    }

    /// The app models' changes, and the sync models' changes, of one save.
    private func split(_ request: DataStoreSaveChangesRequest<Snapshot>)
        -> (data: DataStoreSaveChangesRequest<Snapshot>, state: DataStoreSaveChangesRequest<Snapshot>) {
        let isApp = { (id: PersistentIdentifier) in self.appEntities.contains(id.entityName) }
        var data = request, state = request
        data.inserted = request.inserted.filter { isApp($0.persistentIdentifier) }
        data.updated = request.updated.filter { isApp($0.persistentIdentifier) }
        data.deleted = request.deleted.filter { isApp($0.persistentIdentifier) }
        data.updatedAttributes = request.updatedAttributes.filter { isApp($0.key) }
        data.toManyChanges = request.toManyChanges.filter { isApp($0.key) }
        state.inserted = request.inserted.filter { !isApp($0.persistentIdentifier) }
        state.updated = request.updated.filter { !isApp($0.persistentIdentifier) }
        state.deleted = request.deleted.filter { !isApp($0.persistentIdentifier) }
        state.updatedAttributes = request.updatedAttributes.filter { !isApp($0.key) }
        state.toManyChanges = request.toManyChanges.filter { !isApp($0.key) }
        return (data, state)
    }

    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        do {
            return try inner.fetchHistory(descriptor)
        } catch let error as HistoryError where error.code == .historyTokenExpired && configuration.sabotage == .neverExpiresTokens {
            // What is left after the token, as if nothing had been deleted.
            var rest = descriptor
            rest.after = nil
            let position = descriptor.after?.positions[identifier] ?? 0
            return try inner.fetchHistory(rest).filter { $0.transactionIdentifier > position }
        }
    }

    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws { try inner.deleteHistory(descriptor) }
    public func currentHistoryToken() throws -> DefaultHistoryToken? { try inner.currentHistoryToken() }

    public func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result {
        guard let exclusive = inner as? any ExclusiveAccessProviding else { return try body() }
        return try exclusive.withExclusiveAccess(body)
    }
}
