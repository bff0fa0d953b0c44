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

    /// The author of the saves a replicator makes: `StoreSync/<origin>/<first>-<last>` for the
    /// changes of a run of origin transactions (see ``OriginRange``), `StoreSync/<what>` for its
    /// own bookkeeping.
    static let authorPrefix = "StoreSync"

    /// Whether a transaction was saved by a replicator (never sent on: no echo).
    static func isReplicatorAuthored(_ transaction: DefaultHistoryTransaction) -> Bool {
        transaction.author?.hasPrefix(authorPrefix + "/") == true
    }

    /// The origin transactions one replicator save applied: transactions `first` through `last`
    /// of replica `origin` (the replicator saves among them passed), with `merged` when the save
    /// merged models on a unique key, which the origin must then pull too.
    ///
    /// The author names them `StoreSync/<origin>/<first>-<last>`, or `StoreSync/<origin>/<n>` for
    /// one (the only form before saves were batched: stores written then hold it), with `/merged`
    /// after a unique-key merge.
    struct OriginRange: Equatable {
        var origin: String
        var first: Int64
        var last: Int64
        var merged = false

        /// The author of the save that applies this range.
        var author: String {
            let numbers = first == last ? "\(last)" : "\(first)-\(last)"
            return "\(SyncRound.authorPrefix)/\(origin)/\(numbers)" + (merged ? "/" + SyncRound.mergedMarker : "")
        }
    }

    /// The origin transactions a transaction read from a store applied: the range its author
    /// names for a replicator's save of origin transactions; the store and the transaction's own
    /// number for a save by an app; `nil` for a replicator's bookkeeping (or an author this
    /// version cannot read).
    static func origin(of transaction: DefaultHistoryTransaction) -> OriginRange? {
        guard isReplicatorAuthored(transaction) else {
            return OriginRange(origin: transaction.storeIdentifier, first: transaction.transactionIdentifier,
                               last: transaction.transactionIdentifier)
        }
        let parts = transaction.author?.split(separator: "/", omittingEmptySubsequences: false) ?? []
        guard parts.count == 3 || (parts.count == 4 && parts[3] == mergedMarker) else { return nil }
        let numbers = parts[2].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = Int64(numbers[0]), let last = numbers.count == 2 ? Int64(numbers[1]) : first, first <= last else { return nil }
        return OriginRange(origin: String(parts[1]), first: first, last: last, merged: parts.count == 4)
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

    /// `store` with the rows and clock records of the models `ids` read ahead, for one save's
    /// merge: two fetches per entity instead of two per model (see ``SyncStore/readingAhead(_:)``).
    func readingAhead(_ ids: [PersistentIdentifier], in store: SyncStore) throws -> SyncStore {
        try store.readingAhead(ids + ids.map(SyncStateRows.clockRecordID))
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
