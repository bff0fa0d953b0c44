/// A storage backend, in SwiftData's shape: it fetches and saves snapshots for a
/// ``ModelContext``. Add ``HistoryProviding`` to record and serve history.
///
/// Implementations must be thread-safe (many contexts call one store from many tasks) and must
/// make each `save` all-or-nothing: a save that throws changes nothing. Run the
/// `StoreConformance` suite from your tests to check the whole contract.
public protocol DataStore: AnyObject, Sendable {
    /// The configuration type that describes and makes this store.
    associatedtype Configuration: DataStoreConfiguration where Configuration.Store == Self
    /// The snapshot type the store fetches and saves (``DefaultSnapshot`` for the framework's backends).
    associatedtype Snapshot: DataStoreSnapshot

    /// The configuration the store was made from.
    var configuration: Configuration { get }
    /// Identifies this store's data, stable across reopening for persistent stores. History
    /// tokens name stores by it.
    var identifier: String { get }
    /// The model types the store holds.
    var schema: Schema { get }

    /// Opens (or creates) the store described by `configuration`.
    /// - Throws: ``DataStoreError`` when the store cannot be opened; nothing is changed then.
    init(_ configuration: Configuration) throws

    /// The snapshots a descriptor selects. A store that cannot evaluate the predicate throws
    /// ``DataStoreError/preferInMemoryFilter``; one that cannot sort throws
    /// ``DataStoreError/preferInMemorySort``; the context then does that part itself.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>

    /// How many models a descriptor selects (same in-memory fallbacks as ``fetch(_:)``).
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int

    /// The identifiers a descriptor selects (same in-memory fallbacks as ``fetch(_:)``).
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]

    /// Applies inserts, updates and deletes atomically, recording one history transaction when
    /// anything changed. An insert that collides with a stored model on a unique constraint
    /// updates that model; the result maps the inserted identifier to the stored one.
    /// - Throws: ``DataStoreError``; the store is then exactly as before.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>

    /// Deletes every model a predicate selects, in one transaction.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws

    /// Removes all data and history. Transaction numbers keep rising, and every token taken
    /// before the erase is expired, the newest one too (`HistoryLog.removeAll()` does both).
    func erase() throws

    /// The schema the store's data was written with, as the store recorded it:
    /// ``StoredSchema/unrecorded`` for a store written before it recorded one, `nil` for a
    /// backend that records none and never migrates (the default). ``ModelContainer`` compares it with ``schema`` on open and calls
    /// ``migrate(_:)`` when they differ.
    ///
    /// A store opened with a schema that its recorded one does not hold (``StoredSchema/needsMigration(toHold:)``)
    /// must not read its data as that schema's: until it is migrated, fetches and saves throw
    /// ``DataStoreError/Code/incompatibleSchema``.
    var recordedSchema: StoredSchema? { get }

    /// Moves the store's data to `request.schema` and records it, as one atomic step: a crash or
    /// an error at any instant leaves the store as it was before or as migrated, never between.
    /// History recorded before stays readable through ``DataStoreMigrationRequest/migrate(_:)``.
    /// - Throws: What ``DataStoreMigrationRequest/migrateRows(_:)`` throws;
    ///   ``DataStoreError/Code/incompatibleSchema`` when migrated rows break a unique constraint
    ///   (naming them) or another process migrated the store meanwhile;
    ///   ``DataStoreError/Code/unsupportedFeature`` when the store cannot migrate. Nothing is
    ///   changed then.
    func migrate(_ request: DataStoreMigrationRequest) throws
}

extension DataStore {
    /// `nil`: a store that records no schema is never migrated.
    public var recordedSchema: StoredSchema? { nil }

    /// Refuses: a store that records no schema cannot migrate.
    public func migrate(_ request: DataStoreMigrationRequest) throws {
        throw DataStoreError.unsupportedFeature("\(Self.self) cannot migrate its data to another schema.")
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try fetchIdentifiers(request).count
    }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map { $0.persistentIdentifier }
    }

    /// Fetches the snapshots a predicate selects and saves their deletion. Stores that can do it
    /// in one step under their own lock should override this.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let all = try fetch(DataStoreFetchRequest<T>(descriptor: FetchDescriptor<T>(), editingState: request.editingState))
        let doomed = try SnapshotQuery.filter(all.fetchedSnapshots, by: request.predicate)
        guard !doomed.isEmpty else { return }
        _ = try save(DataStoreSaveChangesRequest(editingState: request.editingState, deleted: doomed))
    }
}
