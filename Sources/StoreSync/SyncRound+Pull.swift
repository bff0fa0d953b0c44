import DataStores
import Foundation

extension SyncRound {
    /// Applies the remote's transactions after this replica's pull position to the local side,
    /// one local save per run of consecutive replicator saves of one origin (within a batch of
    /// `batchSize` remote transactions) and per app save on the remote, holding their data, the
    /// clock records, the pull position and the origin's last applied transaction. A remote
    /// history that no longer reaches back to the position is replaced by a full resync
    /// (``pullResync()``).
    mutating func pull() throws {
        guard let state else { return }
        // How far this round has read past the saved position over skipped transactions only.
        var skipped = SkippedStretch()
        while true {
            enter(.pullRead)
            let position = max(try SyncStateRows.pullPosition(of: remote.identifier, in: local), skipped.through)
            let transactions: [DefaultHistoryTransaction]
            do {
                transactions = try remote.transactions(after: position, limit: max(1, configuration.batchSize))
            } catch where Self.isExpired(error) {
                try pullResync()
                return
            }
            guard !transactions.isEmpty else { return }
            // The run of transactions the next save applies, and the origin range they name.
            var run: [DefaultHistoryTransaction] = [], applied: OriginRange?
            for transaction in transactions {
                // This replica's own push comes back only when the remote merged models on a
                // unique key in it: the merge is news here too.
                guard let range = Self.origin(of: transaction), range.origin != state.replicaID || range.merged,
                      try appliedThrough(range.origin, pending: applied) < range.last else {
                    report.skippedTransactions += 1
                    skipped.pass(transaction.transactionIdentifier)
                    continue
                }
                skipped = SkippedStretch()
                // A replicator save of the same origin joins the run; an app's save on the remote
                // goes alone, dated by its own timestamp.
                if let open = applied, open.origin == range.origin, Self.isReplicatorAuthored(transaction),
                   run.last.map(Self.isReplicatorAuthored) == true {
                    applied?.last = range.last
                } else {
                    if let open = applied { try pullSave(run, applying: open) }
                    run = []
                    applied = OriginRange(origin: range.origin, first: range.first, last: range.last)
                }
                run.append(transaction)
            }
            if let open = applied { try pullSave(run, applying: open) }
            if skipped.isWorthASave {
                var save = SyncSave()
                SyncStateRows.writePullPosition(of: remote.identifier, skipped.through, into: &save)
                try local.save(save, author: Self.authorPrefix + "/position")
                skipped = SkippedStretch()
            }
        }
    }

    /// The last transaction of `origin` applied here: saved, or in the run about to be saved.
    private func appliedThrough(_ origin: String, pending: OriginRange?) throws -> Int64 {
        let saved = try SyncStateRows.appliedOrigin(origin, in: local)
        guard let pending, pending.origin == origin else { return saved }
        return max(saved, pending.last)
    }

    /// Applies remote transactions (a run of one origin, oldest first) to the local side in one
    /// save: the models they changed as the remote rows are now, with their clock records, the
    /// pull position at the last transaction and `applied`'s origin at its last number. The
    /// models' rows and records are read ahead on both sides.
    private mutating func pullSave(_ transactions: [DefaultHistoryTransaction], applying applied: OriginRange) throws {
        guard var state, var clock, let newest = transactions.last else { return }
        defer { self.clock = clock }
        enter(.pullSave)
        // An app's own save on the remote is dated by the remote's clock.
        let appClock = HybridLogicalTimestamp(at: newest.timestamp, replica: remote.identifier)
        let ids = transactions.flatMap { changedModels($0) }
        var session = session(into: try readingAhead(ids, in: local), heldFresh: { _ in clock.tick() })
        try send(ids, from: try readingAhead(ids, in: remote), fresh: { ModelDating.after($0, floor: appClock) }, into: &session)
        for (id, clocks) in session.received { try clock.receive(clocks, of: id) }
        SyncStateRows.writePullPosition(of: remote.identifier, newest.transactionIdentifier, into: &session.save)
        SyncStateRows.writeAppliedOrigin(applied.origin, applied.last, into: &session.save)
        state.clockMilliseconds = clock.milliseconds
        state.clockCounter = clock.counter
        SyncStateRows.write(state, into: &session.save)
        try local.save(session.save, author: applied.author)
        self.state = state
        report.pulledTransactions += transactions.count
        report.appliedChanges += session.appliedChanges
        reportResolutions(session.resolutions)
    }

    /// The remote's history no longer reaches back to this replica's pull position: every
    /// synced remote model (rows and clock records) is merged into the local side, in one save
    /// with the pull position at the remote's current transaction. Local models the remote never
    /// held are unpushed local inserts, and stay.
    mutating func pullResync() throws {
        guard var state, var clock else { return }
        defer { self.clock = clock }
        enter(.pullRead)
        let current = try remote.currentTransaction()
        let ids = try allSyncedModels(in: remote)
        enter(.pullSave)
        let floor = HybridLogicalTimestamp(milliseconds: 0, counter: 0, replica: remote.identifier)
        var session = session(into: local, heldFresh: { _ in clock.tick() })
        try send(ids, from: remote, fresh: { ModelDating.after($0, floor: floor) }, into: &session)
        for (id, clocks) in session.received { try clock.receive(clocks, of: id) }
        SyncStateRows.writePullPosition(of: remote.identifier, current, into: &session.save)
        state.clockMilliseconds = clock.milliseconds
        state.clockCounter = clock.counter
        SyncStateRows.write(state, into: &session.save)
        try local.save(session.save, author: Self.authorPrefix + "/resync")
        self.state = state
        report.resynced = true
        report.appliedChanges += session.appliedChanges
        reportResolutions(session.resolutions)
    }
}
