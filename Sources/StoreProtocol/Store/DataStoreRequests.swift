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
    /// Whether the context will load the models that the selected rows name through their
    /// relationships (and the models those name, level by level): a store may then send the
    /// rows of those models that it holds along in ``DataStoreFetchResult/relatedSnapshots``,
    /// read in the same pass as the selected rows, and save the context one fetch by key per
    /// destination entity and level. A store is free to send none (`false` by default; see
    /// ``DataStoreFetchResult/relatedSnapshots`` for what it may send).
    public var includesRelatedSnapshots: Bool

    /// A request for `descriptor`, translating it; `includesRelatedSnapshots` asks the store to
    /// send related rows along (``DataStoreFetchResult/relatedSnapshots``).
    /// - Complexity: O(*n*) in the size of the predicate and the number of sort descriptors.
    public init(descriptor: FetchDescriptor<T>, editingState: EditingState = EditingState(), includesRelatedSnapshots: Bool = false) {
        self.descriptor = descriptor
        self.editingState = editingState
        self.query = FetchQuery(descriptor)
        self.includesRelatedSnapshots = includesRelatedSnapshots
    }
}

/// What a store answers to a fetch.
public struct DataStoreFetchResult<T: PersistentModel, Snapshot: DataStoreSnapshot>: Sendable {
    /// The descriptor of the request the store answers.
    public var descriptor: FetchDescriptor<T>
    /// The selected snapshots, in the descriptor's order.
    public var fetchedSnapshots: [Snapshot]
    /// Rows of related models the store chose to send along, by identifier: for a request with
    /// ``DataStoreFetchRequest/includesRelatedSnapshots``, the stored rows of models that the
    /// selected rows name through a relationship, and of models those rows name in turn, that
    /// this store holds, as it held them when it read the selected rows. Empty by default, and
    /// always correct when empty: the context then fetches the related models by key itself.
    ///
    /// What the context does with them (``ModelContext``): it takes a row from here only for a
    /// model it was about to load from this store (named by a relationship of a model that this
    /// fetch gave stored values, of an entity kept in this store, not registered in this pass),
    /// exactly as if its fetch by key had returned the row. So a row may be left out (the context
    /// fetches the models it misses by key; a model stored nowhere is dropped from the
    /// relationship, as always), and an extra row is ignored: one the context does not need,
    /// one of an entity that another store of the container keeps, one of a model no
    /// relationship names. A model registered in the context takes a row from here as it takes
    /// a fetched one: not when it has unsaved changes.
    /// - Important: Each key must be its row's own ``DataStoreSnapshot/persistentIdentifier``:
    ///   a row under another key makes the context's fetch throw
    ///   ``DataStoreError/Code/corruptStore`` before it registers any model of the result.
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
///
/// An update writes only what the saving context changed: for a model in ``updatedAttributes``,
/// the store takes those attributes from the snapshot into its stored row and keeps the others as
/// stored (another context's or process's save of them). It merges under the lock that orders
/// its saves, so that two saves changing different attributes of one model both keep their
/// change; of two saves changing the same attribute, the later one wins. A to-many relationship
/// with an entry in ``toManyChanges`` merges by membership instead: the members the context
/// added and removed are applied to the stored members, so that two saves adding or moving
/// different members of one relationship both keep their change.
/// ``storedValues(updating:with:entity:)`` does the merge.
public struct DataStoreSaveChangesRequest<Snapshot: DataStoreSnapshot>: Sendable {
    /// The context that saves, and the author the store records on the transaction.
    public var editingState: EditingState
    /// Snapshots of new models.
    public var inserted: [Snapshot]
    /// Full snapshots of changed models: every attribute as the saving context holds it. The
    /// store writes the attributes ``updatedAttributes`` names for the model, or all of them
    /// when it names none; it records as updated those whose values then differ from its row.
    public var updated: [Snapshot]
    /// The last known snapshots of deleted models. Deleting a model the store does not hold is
    /// no change.
    public var deleted: [Snapshot]
    /// For models in ``updated``: the names of the attributes and relationships the saving
    /// context changed (``ModelContext`` sends them for every update, from what it last saved or
    /// fetched). The store writes only these into its stored row; an attribute named and absent
    /// from the snapshot becomes `nil`. A model without an entry is written whole (a replay, a
    /// copy between stores).
    public var updatedAttributes: [PersistentIdentifier: Set<String>]
    /// For models in ``updated``: per to-many relationship that ``updatedAttributes`` names, the
    /// members the saving context added and removed (``ModelContext`` sends them for every
    /// changed to-many relationship). The store applies them to its stored members
    /// (``ToManyChange/apply(to:)``) instead of writing the snapshot's array. A named to-many
    /// relationship without an entry is written whole.
    public var toManyChanges: [PersistentIdentifier: [String: ToManyChange]]

    /// Makes a request from the lists, as given; each defaults to empty.
    public init(
        editingState: EditingState, inserted: [Snapshot] = [], updated: [Snapshot] = [], deleted: [Snapshot] = [],
        updatedAttributes: [PersistentIdentifier: Set<String>] = [:],
        toManyChanges: [PersistentIdentifier: [String: ToManyChange]] = [:]
    ) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.updatedAttributes = updatedAttributes
        self.toManyChanges = toManyChanges
    }

    /// The values an update leaves in a stored row: `stored` with the attributes
    /// ``updatedAttributes`` names for `snapshot`'s model taken from `snapshot` (absent there:
    /// removed, which reads as `nil`), or `snapshot`'s values when it names none; a to-many
    /// relationship with an entry in ``toManyChanges`` takes its stored members with that change
    /// applied. Call it on the row as it is under the store's write lock, so that a save another
    /// writer made meanwhile is kept.
    /// - Throws: `DataStoreError/Code/invalidSchema` when a name is not an attribute or
    ///   relationship of `entity`, or names the primary key `id`; or when ``toManyChanges`` names
    ///   a relationship that is not a to-many relationship of `entity` named in
    ///   ``updatedAttributes``.
    /// - Complexity: O(*c*) for *c* names, plus the copy of `stored` and the members of each
    ///   changed to-many relationship.
    public func storedValues(updating stored: [String: SnapshotValue], with snapshot: Snapshot,
                             entity: Schema.Entity) throws -> [String: SnapshotValue] {
        let id = snapshot.persistentIdentifier
        guard let names = updatedAttributes[id] else { return snapshot.values }
        var values = stored
        for name in names {
            guard name != "id", entity.attributeNameSet.contains(name) else {
                throw DataStoreError(.invalidSchema,
                    "The save names `\(name)` among the changed attributes of \(id), which is not an attribute or relationship "
                    + "of \(entity.name) that a save can change (\(entity.attributeNameSet.subtracting(["id"]).sorted().joined(separator: ", "))); "
                    + "nothing was saved.")
            }
            values[name] = snapshot.values[name]
        }
        for (name, change) in toManyChanges[id] ?? [:] {
            guard names.contains(name), entity.relationships.contains(where: { $0.name == name && $0.isToMany }) else {
                throw DataStoreError(.invalidSchema,
                    "The save gives member changes of `\(name)` of \(id), which is not a to-many relationship of \(entity.name) "
                    + "among the changed attributes the save names for it; name it in `updatedAttributes` or remove the entry. "
                    + "Nothing was saved.")
            }
            values[name] = change.apply(to: stored[name])
        }
        return values
    }

    /// Refuses ``updatedAttributes`` entries for models that ``updated`` does not hold, and
    /// ``toManyChanges`` entries for models without ``updatedAttributes``: they would be
    /// ignored, and the caller meant something by them.
    /// - Throws: `DataStoreError/Code/invalidSchema` naming such a model.
    /// - Complexity: O(*u*) for *u* updates, nothing when no entry is given.
    public func checkUpdatedAttributes() throws {
        if let stray = toManyChanges.keys.first(where: { updatedAttributes[$0] == nil }) {
            throw DataStoreError(.invalidSchema,
                "The save gives member changes of to-many relationships of \(stray) but no changed attributes for it; "
                + "name the relationships in `updatedAttributes` or remove the entry. Nothing was saved.")
        }
        guard !updatedAttributes.isEmpty else { return }
        let updates = Set(updated.map(\.persistentIdentifier))
        if let stray = updatedAttributes.keys.first(where: { !updates.contains($0) }) {
            throw DataStoreError(.invalidSchema,
                "The save lists changed attributes of \(stray), which it does not update (it is not in `updated`); "
                + "add its snapshot to `updated` or remove the entry. Nothing was saved.")
        }
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
