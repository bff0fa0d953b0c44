import DataStores
import Foundation

extension SyncRound {
    /// Applies the local side's dated transactions after this replica's push position (read from
    /// the remote) to the remote, under the remote's exclusive access: one remote save per batch
    /// of up to `batchSize` local transactions, holding their data as the local rows are now, the
    /// remote clock records and this replica's last applied transaction, authored by the range it
    /// applies (``OriginRange``). Replicator saves are skipped (no echo). A local history that no
    /// longer reaches back to the position is replaced by a push of every dated local model
    /// (``pushResync()``).
    mutating func push() throws {
        guard let state else { return }
        let access = replicator.remoteAccess
        // How far this round has read past the saved position over replicator saves only.
        var skipped = SkippedStretch()
        while true {
            enter(.pushRead)
            let more = try access.withExclusiveAccess { () throws -> Bool in
                let position = max(try SyncStateRows.appliedOrigin(state.replicaID, in: remote), skipped.through)
                guard position < state.stampedThrough else { return false }
                let transactions: [DefaultHistoryTransaction]
                do {
                    transactions = try local.transactions(after: position, limit: max(1, configuration.batchSize))
                        .filter { $0.transactionIdentifier <= state.stampedThrough }
                } catch where Self.isExpired(error) {
                    try pushResync(state)
                    return false
                }
                guard !transactions.isEmpty else { return false }
                let sending = transactions.filter { !Self.isReplicatorAuthored($0) }
                report.skippedTransactions += transactions.count - sending.count
                if !sending.isEmpty {
                    try pushSave(sending, origin: state.replicaID)
                    skipped = SkippedStretch()
                }
                // The replicator saves after the last one sent: passed, and remembered.
                let sentThrough = sending.last?.transactionIdentifier ?? position
                for transaction in transactions where transaction.transactionIdentifier > sentThrough {
                    skipped.pass(transaction.transactionIdentifier)
                }
                if skipped.isWorthASave {
                    var save = SyncSave()
                    SyncStateRows.writeAppliedOrigin(state.replicaID, skipped.through, into: &save)
                    try remote.save(save, author: Self.authorPrefix + "/position")
                    skipped = SkippedStretch()
                }
                return true
            }
            guard more else { return }
        }
    }

    /// Applies local transactions (app saves, oldest first) to the remote in one save: the models
    /// they changed as the local rows are now, their clock records, and `origin`'s applied
    /// transaction at the last of them. The models' rows and records are read ahead on both sides.
    /// Call it under the remote's exclusive access.
    private mutating func pushSave(_ transactions: [DefaultHistoryTransaction], origin: String) throws {
        guard let first = transactions.first?.transactionIdentifier, let last = transactions.last?.transactionIdentifier else { return }
        enter(.pushSave)
        let ids = transactions.flatMap { changedModels($0) }
        var session = try remoteSession(readingAhead: ids)
        try send(ids, from: try readingAhead(ids, in: local), fresh: nil, into: &session)
        try save(session, applying: origin, first: first, last: last)
        report.pushedTransactions += transactions.count
    }

    /// The local history no longer reaches back to this replica's push position: every dated
    /// local model (rows and clock records) is merged into the remote, in one save with the push
    /// position at the stamp position. The merge keeps what the remote holds later.
    /// Call it under the remote's exclusive access.
    mutating func pushResync(_ state: SyncStateRows.ReplicaState) throws {
        let ids = try allSyncedModels(in: local)
        enter(.pushSave)
        var session = try remoteSession()
        try send(ids, from: local, fresh: nil, into: &session)
        try save(session, applying: state.replicaID, first: state.stampedThrough, last: state.stampedThrough)
        report.resynced = true
    }

    /// Saves a merge session into the remote as the application of `origin`'s transactions
    /// `first` through `last`: the clocks it received checked against the wall clock, `origin`'s
    /// applied transaction at `last` in the same save, authored by the range (``OriginRange``);
    /// reports what it applied. Call it under the remote's exclusive access.
    /// - Throws: ``SyncError/Code/clockOutOfRange`` for a clock far ahead (nothing saved); what
    ///   the remote's save throws.
    mutating func save(_ session: MergeSession, applying origin: String, first: Int64, last: Int64) throws {
        var session = session
        for (id, clocks) in session.received { try HybridLogicalClock.check(clocks, of: id, wallClock: configuration.wallClock) }
        SyncStateRows.writeAppliedOrigin(origin, last, into: &session.save)
        let applied = OriginRange(origin: origin, first: first, last: last, merged: session.mergedUniqueKeys)
        try remote.save(session.save, author: applied.author)
        report.appliedChanges += session.appliedChanges
        reportResolutions(session.resolutions)
    }

    /// A merge session into the remote (with the rows and records of `ids` read ahead). A remote
    /// value that no clock dates (an app wrote it there directly, and no push touched the model
    /// since) is dated just after what the remote's record held, by the remote's name: a
    /// replica's edit made after it pulled the value is later.
    func remoteSession(readingAhead ids: [PersistentIdentifier] = []) throws -> MergeSession {
        let floor = HybridLogicalTimestamp(milliseconds: 0, counter: 0, replica: remote.identifier)
        return session(into: ids.isEmpty ? remote : try readingAhead(ids, in: remote), heldFresh: { ModelDating.after($0, floor: floor) })
    }
}
