import DataStores
import Foundation

/// One round of a replicator: its report, and the local replica's state as the round advances it.
struct SyncRound {
    let replicator: Replicator
    var report = SyncReport()
    /// The local replica's state; read (or made) by ``stampLocal()``.
    var state: SyncStateRows.ReplicaState?
    var clock: HybridLogicalClock?

    init(replicator: Replicator) { self.replicator = replicator }

    var local: SyncStore { replicator.localStore }
    var remote: SyncStore { replicator.remoteStore }
    var configuration: SyncConfiguration { replicator.configuration }

    func enter(_ phase: SyncPhase) { configuration.phaseHandler?(phase) }

    /// The author of the saves a replicator makes: `StoreSync/<origin>/<transaction>` for the
    /// changes of one origin transaction, `StoreSync/<what>` for its own bookkeeping.
    static let authorPrefix = "StoreSync"

    /// Whether a transaction was saved by a replicator (never sent on: no echo).
    static func isReplicatorAuthored(_ transaction: DefaultHistoryTransaction) -> Bool {
        transaction.author == authorPrefix || transaction.author?.hasPrefix(authorPrefix + "/") == true
    }

    /// The origin and its transaction number of a transaction read from `store`: the replica and
    /// number its author names for a replicator's save of one origin transaction
    /// (`StoreSync/<origin>/<n>`, with `/merged` when the save merged models on a unique key, which
    /// the origin must then pull too); the store and the transaction's own number for a save by an
    /// app; `nil` for a replicator's bookkeeping.
    static func origin(of transaction: DefaultHistoryTransaction) -> (origin: String, number: Int64, merged: Bool)? {
        guard isReplicatorAuthored(transaction) else {
            return (transaction.storeIdentifier, transaction.transactionIdentifier, false)
        }
        let parts = transaction.author?.split(separator: "/", omittingEmptySubsequences: false) ?? []
        guard parts.count == 3 || (parts.count == 4 && parts[3] == mergedMarker), let number = Int64(parts[2]) else { return nil }
        return (String(parts[1]), number, parts.count == 4)
    }

    /// The author suffix of a push save that merged models on a unique key.
    static let mergedMarker = "merged"

    /// The synced models a transaction changed, each once, in order: those whose rows it changed,
    /// and those whose clock records alone it changed (a value written again elsewhere, later:
    /// the same value with a later clock, which a replica that wrote it earlier must learn, or its
    /// own later edit, dated earlier than that clock, would win there and lose everywhere else).
    func changedModels(_ transaction: DefaultHistoryTransaction) -> [PersistentIdentifier] {
        var seen = Set<PersistentIdentifier>(), ids: [PersistentIdentifier] = []
        for change in transaction.changes {
            let id = SyncStateRows.model(ofClockRecord: change.changedPersistentIdentifier) ?? change.changedPersistentIdentifier
            guard replicator.parts[id.entityName] != nil, seen.insert(id).inserted else { continue }
            ids.append(id)
        }
        return ids
    }

    /// A model of `store` as it is now, dated by its clock record (undated changes: by `fresh`,
    /// or left out without it).
    func dated(_ id: PersistentIdentifier, in store: SyncStore, fresh: ModelDating.Fresh?) throws -> DatedModel? {
        guard let parts = replicator.parts[id.entityName] else { return nil }
        return try SyncSource(store: store, fresh: fresh).model(id, parts: parts)
    }

    /// Merges the models `ids` of `source`, as they are now, into a session; after a model that
    /// was merged into another on a unique key, the survivor too (the merge gave it the loser's
    /// values, which may be news on the other side).
    func send(_ ids: [PersistentIdentifier], from source: SyncStore, fresh: ModelDating.Fresh?,
              into session: inout MergeSession) throws {
        session.source = SyncSource(store: source, fresh: fresh)
        var sent = Set<PersistentIdentifier>()
        var pending = ids[...]
        while let id = pending.popFirst() {
            guard sent.insert(id).inserted, let model = try dated(id, in: source, fresh: fresh) else { continue }
            try session.apply(model, id: id)
            if let key = model.clocks.mergedInto, let survivor = try? ValueDigest.value(fromCanonicalJSON: key) {
                pending.append(PersistentIdentifier(entityName: id.entityName, primaryKey: survivor))
            }
        }
    }

    /// A merge session into `destination`.
    func session(into destination: SyncStore, heldFresh: ModelDating.Fresh?) -> MergeSession {
        MergeSession(destination: destination, parts: replicator.parts, resolver: configuration.resolver, heldFresh: heldFresh)
    }

    /// Reports the resolutions of a save that succeeded.
    mutating func reportResolutions(_ resolutions: [SyncResolution]) {
        report.resolutions += resolutions.count
        guard let handler = configuration.resolutionHandler else { return }
        for resolution in resolutions { handler(resolution) }
    }

    /// Whether an error says that history after a position was deleted (or the store replaced).
    static func isExpired(_ error: any Error) -> Bool {
        HistoryError.historyTokenExpired ~= error || HistoryError.foreignToken ~= error
    }

    /// The local replica state with the clock's reading, to save.
    func currentState() -> SyncStateRows.ReplicaState? {
        guard var state, let clock else { return nil }
        state.clockMilliseconds = clock.milliseconds
        state.clockCounter = clock.counter
        return state
    }
}
