import DataStores
import Foundation

/// One side of a replicator: the one store of a container, read and written as snapshots, with its
/// history. The replicator works at this level (not through a `ModelContext`) so that a save holds
/// exactly the changes it decided, written attribute by attribute.
final class SyncStore: Sendable {
    let store: any DataStore
    let history: any HistoryProviding<DefaultHistoryTransaction>
    let schema: Schema
    let identifier: String
    /// The rows ``readingAhead(_:)`` read, by model; a model it looked for and found no row of is
    /// in ``readAheadModels`` without a row here.
    private let readAhead: [PersistentIdentifier: [String: SnapshotValue]]
    private let readAheadModels: Set<PersistentIdentifier>

    /// The one store of `container`, which must keep history: default history, or history of its
    /// own kind that bridges to it (a log store's, read as a push-only source).
    /// - Throws: ``SyncError/Code/unsupportedStore`` for a container of several stores;
    ///   ``SyncError/Code/historyUnavailable`` for a store without history a replicator can read.
    init(_ container: ModelContainer, role: String) throws {
        guard container.stores.count == 1, let store = container.stores.first else {
            throw SyncError(.unsupportedStore,
                "The \(role) container has \(container.stores.count) stores; a replicator syncs a container of exactly one store. "
                + "Give the synced models (and Replicator.models) one configuration.")
        }
        let history: any HistoryProviding<DefaultHistoryTransaction>
        if let provider = store as? any HistoryProviding<DefaultHistoryTransaction> {
            history = provider
        } else if let bridge = store as? any DefaultHistoryBridging {
            history = BridgedDefaultHistory(bridge)
        } else {
            throw SyncError(.historyUnavailable,
                "The \(role) store (\(type(of: store))) keeps no history a replicator can read (HistoryProviding with "
                + "DefaultHistoryTransaction); sync needs history on both sides.")
        }
        self.store = store
        self.history = history
        schema = store.schema
        identifier = store.identifier
        readAhead = [:]
        readAheadModels = []
    }

    /// `base` answering the models `models` from `rows`.
    private init(_ base: SyncStore, rows: [PersistentIdentifier: [String: SnapshotValue]], models: Set<PersistentIdentifier>) {
        store = base.store
        history = base.history
        schema = base.schema
        identifier = base.identifier
        readAhead = rows
        readAheadModels = models
    }

    // MARK: Reading

    /// The stored values of one model, `nil` when the store holds none.
    /// - Complexity: one fetch by primary key (none for a model read ahead).
    func row(_ id: PersistentIdentifier) throws -> [String: SnapshotValue]? {
        if readAheadModels.contains(id) { return readAhead[id] }
        guard let entity = schema.entity(named: id.entityName) else { return nil }
        return try Self.row(of: entity.modelType, key: id.primaryKey, in: store)
    }

    /// This store with the rows of `ids` read in one fetch per entity, which ``row(_:)`` then
    /// answers without a round trip to the store: for the models one replicator save merges,
    /// which a server store would otherwise be asked for one by one.
    ///
    /// The rows are those of the moment it reads them: use the result for one save's reads and
    /// drop it (a row saved since is not seen). Every other read goes to the store.
    /// - Complexity: one fetch per entity, selecting the rows by primary key.
    func readingAhead(_ ids: [PersistentIdentifier]) throws -> SyncStore {
        var keys: [String: [SnapshotValue]] = [:], wanted = readAheadModels
        for id in ids where wanted.insert(id).inserted { keys[id.entityName, default: []].append(id.primaryKey) }
        var rows = readAhead, models = readAheadModels
        for (entityName, keys) in keys.sorted(by: { $0.key < $1.key }) {
            guard let entity = schema.entity(named: entityName),
                  let fetched = try Self.rows(of: entity.modelType, keys: keys, in: store) else { continue }
            for key in keys {
                let id = PersistentIdentifier(entityName: entityName, primaryKey: key)
                models.insert(id)
                rows[id] = fetched[id]
            }
        }
        return SyncStore(self, rows: rows, models: models)
    }

    /// Every row of an entity.
    /// - Complexity: O(*n*) in the entity's rows.
    func rows(of entityName: String) throws -> [PersistentIdentifier: [String: SnapshotValue]] {
        guard let entity = schema.entity(named: entityName) else { return [:] }
        return try Self.rows(of: entity.modelType, in: store)
    }

    /// The transactions after `position` (a transaction number of this store, 0 for all), at most
    /// `limit`, oldest first.
    /// - Throws: `HistoryError` `.historyTokenExpired` (or `.foreignToken` for a store that was
    ///   erased or replaced) when history after `position` was deleted.
    func transactions(after position: Int64, limit: Int) throws -> [DefaultHistoryTransaction] {
        try history.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
            after: DefaultHistoryToken(storeIdentifier: identifier, transactionNumber: position), fetchLimit: limit))
    }

    /// The number of the newest transaction, 0 before the first.
    func currentTransaction() throws -> Int64 {
        try history.currentHistoryToken()?.token(positions: identifier) ?? 0
    }

    // MARK: Writing

    /// Saves `changes` in one save authored `author`.
    /// - Throws: what the store throws; nothing is saved then.
    func save(_ changes: SyncSave, author: String) throws {
        guard !changes.isEmpty else { return }
        try Self.save(changes, author: author, in: store)
    }

    private static func save<S: DataStore>(_ changes: SyncSave, author: String, in store: S) throws {
        func snapshot(_ id: PersistentIdentifier, _ values: [String: SnapshotValue]) -> S.Snapshot {
            S.Snapshot(persistentIdentifier: id, values: values)
        }
        let request = DataStoreSaveChangesRequest<S.Snapshot>(
            editingState: EditingState(author: author),
            inserted: changes.insertedOrder.compactMap { id in changes.inserted[id].map { snapshot(id, $0) } },
            updated: changes.updatedOrder.compactMap { id in changes.updated[id].map { snapshot(id, $0.values) } },
            deleted: changes.deleted.map { snapshot($0, [:]) },
            updatedAttributes: changes.updated.mapValues(\.names),
            toManyChanges: changes.updated.compactMapValues { $0.members.isEmpty ? nil : $0.members })
        _ = try store.save(request)
    }

    private static func row<T: PersistentModel>(of type: T.Type, key: SnapshotValue, in store: some DataStore) throws -> [String: SnapshotValue]? {
        let id = PersistentIdentifier(entityName: T.entityName, primaryKey: key)
        if let keyPath = idKeyPath(of: T.self), let value = try? SnapshotDecoder().decode(T.ID.self, from: key) {
            let byID = Predicate<T> { model in
                PredicateExpressions.build_Equal(
                    lhs: PredicateExpressions.build_KeyPath(root: model, keyPath: keyPath),
                    rhs: PredicateExpressions.build_Arg(value))
            }
            var descriptor = FetchDescriptor<T>(predicate: byID)
            descriptor.fetchLimit = 1
            return try store.fetch(DataStoreFetchRequest(descriptor: descriptor)).fetchedSnapshots
                .first { $0.persistentIdentifier == id }?.values
        }
        return try rows(of: type, in: store)[id]
    }

    /// The rows of the models of `keys` (primary keys), fetched at once by `id`; `nil` when the
    /// model's metadata lists no `id` or a key does not decode as one.
    private static func rows<T: PersistentModel>(of type: T.Type, keys: [SnapshotValue],
                                                 in store: some DataStore) throws -> [PersistentIdentifier: [String: SnapshotValue]]? {
        guard let keyPath = idKeyPath(of: T.self) else { return nil }
        var values: [T.ID] = []
        for key in keys {
            guard let value = try? SnapshotDecoder().decode(T.ID.self, from: key) else { return nil }
            values.append(value)
        }
        let wanted = values
        let byIDs = Predicate<T> { model in
            PredicateExpressions.build_contains(
                PredicateExpressions.build_Arg(wanted),
                PredicateExpressions.build_KeyPath(root: model, keyPath: keyPath))
        }
        let fetched = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>(predicate: byIDs))).fetchedSnapshots
        return Dictionary(fetched.map { ($0.persistentIdentifier, $0.values) }, uniquingKeysWith: { first, _ in first })
    }

    private static func rows<T: PersistentModel>(of type: T.Type, in store: some DataStore) throws -> [PersistentIdentifier: [String: SnapshotValue]] {
        let fetched = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>())).fetchedSnapshots
        return Dictionary(fetched.map { ($0.persistentIdentifier, $0.values) }, uniquingKeysWith: { first, _ in first })
    }

    /// The key path of a model's `id` as its metadata lists it (what a store recognizes as a
    /// lookup by primary key), `nil` when the metadata does not list it.
    private static func idKeyPath<T: PersistentModel>(of type: T.Type) -> (any KeyPath<T, T.ID> & Sendable)? {
        for keyPath in T.schemaMetadata.attributes {
            guard let typed = keyPath as? KeyPath<T, T.ID>, T.attributeName(of: typed) == "id" else { continue }
            // Key paths are immutable; `Sendable` is a marker, so the layout is the same.
            return unsafeBitCast(typed, to: (any KeyPath<T, T.ID> & Sendable).self)
        }
        return nil
    }
}

extension DefaultHistoryToken {
    /// This token's position in one store, `nil` when it has none.
    func token(positions store: String) -> Int64? { positions[store] }
}

/// The changes of one replicator save, keyed by model so that two decisions about one model in one
/// save combine: inserts (whole rows), updates (the attributes named, and to-many member changes),
/// deletes.
struct SyncSave: Sendable {
    struct Update: Sendable {
        var values: [String: SnapshotValue]
        var names: Set<String> = []
        var members: [String: ToManyChange] = [:]
    }

    private(set) var inserted: [PersistentIdentifier: [String: SnapshotValue]] = [:]
    private(set) var insertedOrder: [PersistentIdentifier] = []
    private(set) var updated: [PersistentIdentifier: Update] = [:]
    private(set) var updatedOrder: [PersistentIdentifier] = []
    private(set) var deleted: [PersistentIdentifier] = []

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Writes a whole row (a new model, or a sync model's row, which a store takes as an update of
    /// the row with its id).
    mutating func insert(_ id: PersistentIdentifier, _ values: [String: SnapshotValue]) {
        if inserted.updateValue(values, forKey: id) == nil { insertedOrder.append(id) }
    }

    /// Writes the attributes `names` of a stored row (`stored` is the row as read).
    mutating func update(_ id: PersistentIdentifier, stored: [String: SnapshotValue], set values: [String: SnapshotValue]) {
        guard !values.isEmpty, !deleted.contains(id) else { return }
        if inserted[id] != nil {
            for (name, value) in values { inserted[id]?[name] = value }
            return
        }
        var update = updated[id] ?? { updatedOrder.append(id); return Update(values: stored) }()
        for (name, value) in values {
            update.values[name] = value
            update.names.insert(name)
        }
        updated[id] = update
    }

    /// Adds and removes members of a to-many relationship of a stored (or inserted) row.
    mutating func changeMembers(_ id: PersistentIdentifier, stored: [String: SnapshotValue], relationship: String, _ change: ToManyChange) {
        guard !deleted.contains(id) else { return }
        if inserted[id] != nil {
            let members = change.apply(to: inserted[id]?[relationship])
            inserted[id]?[relationship] = members
            return
        }
        var update = updated[id] ?? { updatedOrder.append(id); return Update(values: stored) }()
        // A later change of the same member overrides an earlier one of this save.
        let addedNow = Set(change.added), removedNow = Set(change.removed)
        update.members[relationship] = update.members[relationship].map { earlier in
            ToManyChange(added: earlier.added.filter { !removedNow.contains($0) } + change.added,
                         removed: earlier.removed.filter { !addedNow.contains($0) } + change.removed)
        } ?? change
        update.names.insert(relationship)
        update.values[relationship] = change.apply(to: update.values[relationship])
        updated[id] = update
    }

    /// The row this save inserts or updates, as it will be (without a stored row's untouched values
    /// for an update made without reading them: every update here is made from the stored row).
    func pendingRow(_ id: PersistentIdentifier) -> [String: SnapshotValue]? {
        inserted[id] ?? updated[id]?.values
    }

    func isDeleting(_ id: PersistentIdentifier) -> Bool { deleted.contains(id) }

    mutating func delete(_ id: PersistentIdentifier) {
        if inserted.removeValue(forKey: id) != nil { insertedOrder.removeAll { $0 == id } }
        if updated.removeValue(forKey: id) != nil { updatedOrder.removeAll { $0 == id } }
        if !deleted.contains(id) { deleted.append(id) }
    }
}
