import DataStores
import Foundation

extension SyncRound {
    /// Applies the local side's dated transactions after this replica's push position (read from
    /// the remote) to the remote, under the remote's exclusive access: one remote save per local
    /// transaction holding its data as the local rows are now, the remote clock records and this
    /// replica's applied transaction. Replicator saves are skipped (no echo). A local history that
    /// no longer reaches back to the position is replaced by a push of every dated local model
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
                for transaction in transactions {
                    guard !Self.isReplicatorAuthored(transaction) else {
                        report.skippedTransactions += 1
                        skipped.pass(transaction.transactionIdentifier)
                        continue
                    }
                    skipped = SkippedStretch()
                    enter(.pushSave)
                    var session = remoteSession()
                    try send(changedModels(transaction), from: local, fresh: nil, into: &session)
                    for (id, clocks) in session.received { try HybridLogicalClock.check(clocks, of: id, wallClock: configuration.wallClock) }
                    SyncStateRows.writeAppliedOrigin(state.replicaID, transaction.transactionIdentifier, into: &session.save)
                    let marker = session.mergedUniqueKeys ? "/" + Self.mergedMarker : ""
                    try remote.save(session.save,
                                    author: "\(Self.authorPrefix)/\(state.replicaID)/\(transaction.transactionIdentifier)\(marker)")
                    report.pushedTransactions += 1
                    report.appliedChanges += session.appliedChanges
                    reportResolutions(session.resolutions)
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

    /// The local history no longer reaches back to this replica's push position: every dated
    /// local model (rows and clock records) is merged into the remote, in one save with the push
    /// position at the stamp position. The merge keeps what the remote holds later.
    /// Call it under the remote's exclusive access.
    mutating func pushResync(_ state: SyncStateRows.ReplicaState) throws {
        let ids = try allSyncedModels(in: local)
        enter(.pushSave)
        var session = remoteSession()
        try send(ids, from: local, fresh: nil, into: &session)
        for (id, clocks) in session.received { try HybridLogicalClock.check(clocks, of: id, wallClock: configuration.wallClock) }
        SyncStateRows.writeAppliedOrigin(state.replicaID, state.stampedThrough, into: &session.save)
        let marker = session.mergedUniqueKeys ? "/" + Self.mergedMarker : ""
        try remote.save(session.save, author: "\(Self.authorPrefix)/\(state.replicaID)/\(state.stampedThrough)\(marker)")
        report.resynced = true
        report.appliedChanges += session.appliedChanges
        reportResolutions(session.resolutions)
    }

    /// A merge session into the remote. A remote value that no clock dates (an app wrote it there
    /// directly, and no push touched the model since) is dated just after what the remote's record
    /// held, by the remote's name: a replica's edit made after it pulled the value is later.
    func remoteSession() -> MergeSession {
        let floor = HybridLogicalTimestamp(milliseconds: 0, counter: 0, replica: remote.identifier)
        return session(into: remote, heldFresh: { ModelDating.after($0, floor: floor) })
    }
}
