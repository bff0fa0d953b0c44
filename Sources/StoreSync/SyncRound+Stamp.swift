import DataStores
import Foundation

extension SyncRound {
    /// Dates the local side's own saves since the stamp position: each value or member changed
    /// since its clock record gets a new clock, in one save with the new stamp position. A change
    /// is dated by when the app saved it (its transaction's timestamp, never later than now):
    /// the clock ticks at each save's time in the order of the saves, so that an edit made
    /// offline loses to a later edit made elsewhere, however late its device syncs. A change the
    /// history does not name (a local history that no longer reaches back to the position is
    /// compared row by row, ``SyncReport/resynced``) is dated now.
    mutating func stampLocal() throws {
        enter(.stampLocal)
        let existing = try SyncStateRows.replicaState(in: local)
        var state = existing ?? SyncStateRows.ReplicaState(replicaID: UUID().uuidString, clockMilliseconds: 0, clockCounter: 0,
                                                          stampedThrough: 0)
        var clock = try HybridLogicalClock(replica: state.replicaID, milliseconds: state.clockMilliseconds, counter: state.clockCounter,
                                      wallClock: configuration.wallClock)
        var save = SyncSave()
        var models: [PersistentIdentifier] = []
        // Each part an app save changed, with that save's time, in the order of the saves.
        var changes: [(id: PersistentIdentifier, part: ModelDating.Part, milliseconds: Int64)] = []
        var appTransactions = 0, replicatorTransactions = 0
        var through = state.stampedThrough
        do {
            while true {
                let transactions = try local.transactions(after: through, limit: max(1, configuration.batchSize) * 10)
                guard let last = transactions.last else { break }
                var seen = Set(models)
                for transaction in transactions {
                    if Self.isReplicatorAuthored(transaction) { replicatorTransactions += 1; continue }
                    appTransactions += 1
                    for id in changedModels(transaction) where seen.insert(id).inserted { models.append(id) }
                    let milliseconds = HybridLogicalTimestamp.milliseconds(of: transaction.timestamp)
                    for change in transaction.changes where replicator.parts[change.changedPersistentIdentifier.entityName] != nil {
                        for part in Self.parts(of: change) { changes.append((change.changedPersistentIdentifier, part, milliseconds)) }
                    }
                }
                through = last.transactionIdentifier
            }
        } catch where Self.isExpired(error) {
            // Every synced row against its record: what changed since is a local edit.
            through = try local.currentTransaction()
            models = try allSyncedModels(in: local)
            changes = []
            appTransactions += 1
            report.resynced = true
        }
        // Readings at the saves' times, in the order of the saves (a part's latest save dates it):
        // each later than the one before, whatever the wall clock did between the saves.
        var saved: [PersistentIdentifier: [ModelDating.Part: HybridLogicalTimestamp]] = [:]
        let now = clock.wallClock()
        for change in changes { saved[change.id, default: [:]][change.part] = clock.tick(at: min(change.milliseconds, now)) }
        for id in models {
            guard let parts = replicator.parts[id.entityName] else { continue }
            let row = try local.row(id)
            let record = try SyncStateRows.clocks(of: id, in: local)
            let fresh: ModelDating.Fresh = { _ in clock.tick() }
            guard let (clocks, changed) = ModelDating.date(row, record: record, parts: parts, fresh: fresh, saved: saved[id] ?? [:]),
                  changed else { continue }
            try SyncStateRows.write(clocks, of: id, into: &save)
        }
        // Only replicator saves since the position: moving it over them is worth a save only now
        // and then (they are skipped again, cheaply, until then; see `SkippedStretch`).
        let movesEnough = appTransactions > 0 || replicatorTransactions >= SkippedStretch.worthASave
        state.stampedThrough = movesEnough ? through : state.stampedThrough
        self.state = state
        self.clock = clock
        guard existing == nil || !save.isEmpty || movesEnough else { return }
        if let current = currentState() { SyncStateRows.write(current, into: &save) }
        try local.save(save, author: Self.authorPrefix + "/stamp")
    }

    /// The parts of its model a history change dates: the life for an insert or a deletion, the
    /// attributes and relationships an update names.
    static func parts(of change: HistoryChange) -> [ModelDating.Part] {
        switch change {
        case .insert, .delete: return [.life]
        case .update(let update):
            func names<Update: HistoryUpdate>(_ update: Update) -> [ModelDating.Part] {
                update.updatedAttributes.compactMap { keyPath in Update.Model.attributeName(of: keyPath).map(ModelDating.Part.named) }
            }
            return names(update)
        }
    }

    /// Every model of `store` that is synced: its rows and its clock records (deleted models).
    func allSyncedModels(in store: SyncStore) throws -> [PersistentIdentifier] {
        var ids: [PersistentIdentifier] = []
        var seen = Set<PersistentIdentifier>()
        for name in replicator.parts.keys.sorted() {
            for id in try store.rows(of: name).keys.sorted(by: { $0.description < $1.description }) where seen.insert(id).inserted {
                ids.append(id)
            }
        }
        for id in try SyncStateRows.allClocks(in: store).keys.sorted(by: { $0.description < $1.description })
        where replicator.parts[id.entityName] != nil && seen.insert(id).inserted {
            ids.append(id)
        }
        return ids
    }
}
