import DataStores

/// A store whose history is of its own kind and reads as `DefaultHistoryTransaction` only
/// through `DefaultHistoryBridging` — a log store, whose history holds inserts only. A
/// replicator reads it through this adapter and takes it as a *push-only source*: it pushes its
/// inserts, never pulls into it, and writes nothing into it (a log could hold neither the
/// updates a pull brings nor the clock records a stamp writes: records are never updated).
final class BridgedDefaultHistory: HistoryProviding {
    let bridge: any DefaultHistoryBridging

    init(_ bridge: any DefaultHistoryBridging) { self.bridge = bridge }

    func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try bridge.fetchDefaultHistory(descriptor)
    }

    func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try bridge.deleteDefaultHistory(descriptor)
    }

    func currentHistoryToken() throws -> DefaultHistoryToken? { try bridge.currentDefaultHistoryToken() }
}

extension SyncStore {
    /// Whether this side is a push-only source (its history is bridged: a log store's).
    var isPushOnlySource: Bool { history is BridgedDefaultHistory }

    /// The oldest transactions still in history, at most `limit`.
    func oldestTransactions(limit: Int) throws -> [DefaultHistoryTransaction] {
        try history.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(fetchLimit: limit))
    }
}

/// The records of a push-only source, read once per entity per round: a log store finds a
/// record by its id only by reading every record, and records never change, so one read serves
/// every transaction of the round. An id not among them (appended since) reads the entity again.
struct InsertedRecords {
    private var byEntity: [String: [PersistentIdentifier: [String: SnapshotValue]]] = [:]

    /// The stored values of `id`, `nil` when the store holds no such record (dropped since).
    mutating func values(of id: PersistentIdentifier, in store: SyncStore) throws -> [String: SnapshotValue]? {
        if let values = byEntity[id.entityName]?[id] { return values }
        let rows = try store.rows(of: id.entityName)
        byEntity[id.entityName] = rows
        return rows[id]
    }
}
