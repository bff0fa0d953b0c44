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

    /// The snapshots a descriptor selects, sorted and paged as it says.
    ///
    /// **What the store cannot evaluate.** ``DataStoreFetchRequest/query`` carries the descriptor
    /// translated (``FetchQuery``): the parts of the predicate and sort that have a
    /// ``QueryExpression`` / ``QuerySortKey``, and what did not translate. Evaluate (or render
    /// in your query language) what you compute exactly as Swift does; for the rest, select a
    /// superset of the rows (every row, or those a rendered part of a top-level `&&` selects) and
    /// hand it to `QueryEvaluator.fetch(_:over:)` (module `StoreBuildingBlocks`), which evaluates
    /// the translated parts on stored values, the `Predicate` and `SortDescriptor`s on decoded
    /// models only where they did not translate, and pages. A store without that module can use
    /// ``SnapshotQuery/evaluate(_:over:)``.
    ///
    /// Throw ``DataStoreError/preferInMemoryFilter`` (or ``DataStoreError/preferInMemorySort``)
    /// only when the store cannot narrow the rows at all, and handing the context every row is
    /// what it would do anyway: the context then fetches every row of the entity (an empty
    /// descriptor) and evaluates the `Predicate` on models itself, and answers `fetchCount` and
    /// `fetchIdentifiers` the same way. That is never cheaper than the store evaluating the same
    /// rows, and it gives up every index. Either way the answer must be exactly what the
    /// `Predicate` selects; the conformance suite's `queries` cases compare it.
    /// - Throws: ``DataStoreError`` (`.preferInMemoryFilter`, `.preferInMemorySort` as above;
    ///   `.invalidPredicate` when the predicate throws on a model; `.ioFailure` and others for
    ///   the store's own failures).
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>

    /// How many models a descriptor selects (same in-memory fallbacks as ``fetch(_:)``).
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int

    /// The identifiers a descriptor selects (same in-memory fallbacks as ``fetch(_:)``).
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]

    /// Applies inserts, updates and deletes atomically, recording one history transaction when
    /// anything changed. An insert that collides with a stored model on a unique constraint
    /// updates that model; the result maps the inserted identifier to the stored one. Updates
    /// are checked against unique constraints on the rows the whole save leaves (as a database
    /// checks a deferred constraint at commit): models may swap unique values in one save.
    /// - Throws: ``DataStoreError`` (`.constraintViolation` when the save would leave two models
    ///   with the same values of a unique constraint); the store is then exactly as before.
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
