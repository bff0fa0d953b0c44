import DataStores
import Foundation

extension SyncRound {
    /// The push of a push-only source (a log store): applies its transactions after its push
    /// position (read from the remote) to the remote, under the remote's exclusive access, one
    /// remote save per transaction holding its records, their clock records and the source's
    /// applied transaction, as ``push()`` does. Nothing is read from or written to the source's
    /// sync state: it holds none.
    ///
    /// - The replica ID is the source store's identifier: a log keeps it in its identity file for
    ///   its whole life (retention and erasing keep it), so no state row is needed, and its
    ///   transaction numbers never start again, so the position stays true.
    /// - A record is never updated, so every value of it takes one clock, its transaction's:
    ///   `HLC(ms: the transaction's timestamp, counter: 0, replica: the source's identifier)`.
    /// - History trimmed past the position (retention dropped records before a push reached
    ///   them) leaves nothing to resend: the records still there are pushed and
    ///   ``SyncReport/resynced`` says that some may have been missed.
    mutating func pushInserts() throws {
        let replica = local.identifier
        let access = replicator.remoteAccess
        var records = InsertedRecords()
        while true {
            enter(.pushRead)
            let more = try access.withExclusiveAccess { () throws -> Bool in
                let position = try SyncStateRows.appliedOrigin(replica, in: remote)
                let transactions = try insertTransactions(after: position)
                for transaction in transactions {
                    enter(.pushSave)
                    let clock = HybridLogicalTimestamp(at: transaction.timestamp, replica: replica)
                    var session = try remoteSession()
                    for id in changedModels(transaction) {
                        guard let parts = replicator.parts[id.entityName], let values = try records.values(of: id, in: local),
                              let (clocks, _) = ModelDating.date(values, record: nil, parts: parts, fresh: { _ in clock }) else { continue }
                        try session.apply(DatedModel(values: values, clocks: clocks), id: id)
                    }
                    let number = transaction.transactionIdentifier
                    try save(session, applying: replica, first: number, last: number)
                    report.pushedTransactions += 1
                }
                return !transactions.isEmpty
            }
            guard more else { return }
        }
    }

    /// The push-only source's next transactions after `position`, each holding inserts only.
    /// - Throws: ``SyncError/Code/historyTokenExpired`` when the position lies past the source's
    ///   newest transaction; ``SyncError/Code/unsupportedStore`` for a transaction that holds an
    ///   update or a deletion.
    private mutating func insertTransactions(after position: Int64) throws -> [DefaultHistoryTransaction] {
        let limit = max(1, configuration.batchSize)
        let transactions: [DefaultHistoryTransaction]
        do {
            transactions = try local.transactions(after: position, limit: limit)
        } catch where Self.isExpired(error) {
            let newest = try local.currentTransaction()
            guard position <= newest else {
                throw SyncError(.historyTokenExpired,
                    "The remote applied transactions of the log store \(local.identifier) up to \(position), but the log holds only "
                    + "\(newest): it was restored from a backup or copied, and its new records would take numbers the remote takes "
                    + "for pushed. Nothing was pushed. Copy its records into a new log store (a new identity) and push that.")
            }
            // Retention dropped records past the position: what is left is pushed.
            report.resynced = true
            transactions = try local.oldestTransactions(limit: limit).filter { $0.transactionIdentifier > position }
            if transactions.isEmpty, newest > position {
                // Nothing left (the log was erased): the position moves on alone, so that the
                // next rounds find history after it.
                var save = SyncSave()
                SyncStateRows.writeAppliedOrigin(local.identifier, newest, into: &save)
                try remote.save(save, author: Self.authorPrefix + "/position")
            }
        }
        for transaction in transactions {
            for change in transaction.changes {
                guard case .insert = change else {
                    throw SyncError(.unsupportedStore,
                        "Transaction \(transaction.transactionIdentifier) of the push-only store \(local.identifier) holds a change "
                        + "other than an insert (\(change.changedPersistentIdentifier)); a push-only source is pushed by its inserts "
                        + "only. Nothing of it was pushed.")
                }
            }
        }
        return transactions
    }
}
