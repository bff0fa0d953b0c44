import Foundation

/// A fetch sent to a store.
///
/// A store answers it from ``query``, the descriptor translated for stores: the predicate as a
/// ``QueryExpression`` over stored values and the sort as ``QuerySortKey``s wherever they
/// translate exactly, and otherwise a report that the descriptor's `Predicate` or
/// `SortDescriptor`s must decide on decoded models (``SnapshotQuery``). Either way the results
/// must be the same. `StoreBuildingBlocks`' `QueryEvaluator` does all of this for rows in memory.
public struct DataStoreFetchRequest<T: PersistentModel>: Sendable {
    /// What to fetch; setting it translates it again into ``query``.
    public var descriptor: FetchDescriptor<T> {
        didSet { query = FetchQuery(descriptor) }
    }
    /// The context that fetches, and its author.
    public var editingState: EditingState
    /// The descriptor translated for stores, once per request (see ``FetchQuery``).
    public private(set) var query: FetchQuery

    /// A request for `descriptor`, translating it.
    /// - Complexity: O(*n*) in the size of the predicate and the number of sort descriptors.
    public init(descriptor: FetchDescriptor<T>, editingState: EditingState = EditingState()) {
        self.descriptor = descriptor
        self.editingState = editingState
        self.query = FetchQuery(descriptor)
    }
}

/// What a store answers to a fetch.
public struct DataStoreFetchResult<T: PersistentModel, Snapshot: DataStoreSnapshot>: Sendable {
    /// The descriptor of the request the store answers.
    public var descriptor: FetchDescriptor<T>
    /// The selected snapshots, in the descriptor's order.
    public var fetchedSnapshots: [Snapshot]
    /// Snapshots of related models the store chose to send along.
    public var relatedSnapshots: [PersistentIdentifier: Snapshot]

    /// Makes a result; `relatedSnapshots` defaults to none.
    public init(descriptor: FetchDescriptor<T>, fetchedSnapshots: [Snapshot], relatedSnapshots: [PersistentIdentifier: Snapshot] = [:]) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}

/// The changes of one ``ModelContext/save()`` for one store, each list in the order the changes
/// were first made. A store records them in one history transaction: inserts, then updates,
/// then deletes.
public struct DataStoreSaveChangesRequest<Snapshot: DataStoreSnapshot>: Sendable {
    /// The context that saves, and the author the store records on the transaction.
    public var editingState: EditingState
    /// Snapshots of new models.
    public var inserted: [Snapshot]
    /// Full snapshots of changed models; the store works out which attributes changed.
    public var updated: [Snapshot]
    /// The last known snapshots of deleted models. Deleting a model the store does not hold is
    /// no change.
    public var deleted: [Snapshot]

    /// Makes a request from the lists, as given; each defaults to empty.
    public init(editingState: EditingState, inserted: [Snapshot] = [], updated: [Snapshot] = [], deleted: [Snapshot] = []) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether the request holds no change at all.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a store answers to a save.
public struct DataStoreSaveChangesResult<Snapshot: DataStoreSnapshot>: Sendable {
    /// The ``DataStore/identifier`` of the store that saved.
    public var storeIdentifier: String
    /// Inserted identifiers that now name another stored model (unique-constraint upserts).
    public var remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// The stored state of models whose values the store changed or chose (for example the
    /// merged values of an upsert), keyed by their final identifier.
    public var snapshotsToReregister: [PersistentIdentifier: Snapshot]

    /// Makes the result of a save in the store `storeIdentifier`; the maps default to empty (no
    /// upsert, no value the store changed).
    public init(
        for storeIdentifier: String,
        remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
        snapshotsToReregister: [PersistentIdentifier: Snapshot] = [:]
    ) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
    }
}

/// Deletes every model of `T` that a predicate selects (all of them when `nil`).
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: Sendable {
    /// The context that deletes, and the author the store records on the transaction.
    public var editingState: EditingState
    /// Selects the models to delete; `nil` deletes every model of `T`.
    public var predicate: Predicate<T>?

    /// Makes a request; by default a new editing state with no author, and every model of `T`.
    public init(editingState: EditingState = EditingState(), predicate: Predicate<T>? = nil) {
        self.editingState = editingState
        self.predicate = predicate
    }
}
