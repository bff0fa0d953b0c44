import DataStores
import Foundation

extension SyncRound {
    /// Applies the remote's transactions after this replica's pull position to the local side,
    /// one local save per transaction holding its data, the clock records, the pull position
    /// and the origin's applied transaction. A remote history that no longer reaches back to the
    /// position is replaced by a full resync (``pullResync()``).
    mutating func pull() throws {
        guard var state, var clock else { return }
        defer { self.clock = clock }
        // How far this round has read past the saved position over skipped transactions only.
        var skipped = SkippedStretch()
        while true {
            enter(.pullRead)
            let position = max(try SyncStateRows.pullPosition(of: remote.identifier, in: local), skipped.through)
            let transactions: [DefaultHistoryTransaction]
            do {
                transactions = try remote.transactions(after: position, limit: max(1, configuration.batchSize))
            } catch where Self.isExpired(error) {
                self.clock = clock
                try pullResync()
                clock = self.clock ?? clock
                return
            }
            guard !transactions.isEmpty else { return }
            for transaction in transactions {
                // This replica's own push comes back only when the remote merged models on a
                // unique key in it: the merge is news here too.
                guard let (origin, number, merged) = Self.origin(of: transaction), origin != state.replicaID || merged,
                      try SyncStateRows.appliedOrigin(origin, in: local) < number else {
                    report.skippedTransactions += 1
                    skipped.pass(transaction.transactionIdentifier)
                    continue
                }
                skipped = SkippedStretch()
                enter(.pullSave)
                // An app's own save on the remote is dated by the remote's clock.
                let appClock = HybridLogicalTimestamp(
                    milliseconds: Int64((transaction.timestamp.timeIntervalSince1970 * 1000).rounded(.down)), counter: 0,
                    replica: remote.identifier)
                var session = session(into: local, heldFresh: { _ in clock.tick() })
                try send(changedModels(transaction), from: remote, fresh: { ModelDating.after($0, floor: appClock) }, into: &session)
                for (id, clocks) in session.received { try clock.receive(clocks, of: id) }
                SyncStateRows.writePullPosition(of: remote.identifier, transaction.transactionIdentifier, into: &session.save)
                SyncStateRows.writeAppliedOrigin(origin, number, into: &session.save)
                state.clockMilliseconds = clock.milliseconds
                state.clockCounter = clock.counter
                SyncStateRows.write(state, into: &session.save)
                try local.save(session.save, author: "\(Self.authorPrefix)/\(origin)/\(number)")
                self.state = state
                report.pulledTransactions += 1
                report.appliedChanges += session.appliedChanges
                reportResolutions(session.resolutions)
            }
            if skipped.isWorthASave {
                var save = SyncSave()
                SyncStateRows.writePullPosition(of: remote.identifier, skipped.through, into: &save)
                try local.save(save, author: Self.authorPrefix + "/position")
                skipped = SkippedStretch()
            }
        }
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
