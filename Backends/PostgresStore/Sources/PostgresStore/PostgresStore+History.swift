#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import PostgresNIO
import StoreBuildingBlocks
import StoreProtocol

extension PostgresStore {
    /// The transactions a descriptor selects, oldest first unless it sorts: the rows of
    /// `_history` after the token's number.
    /// - Throws: `HistoryError` `.historyTokenExpired` when history after the token was deleted,
    ///   `.foreignToken` for another store's token or one ahead of this store; `DataStoreError`
    ///   `.ioFailure`.
    /// - Complexity: one indexed range read of the transactions after the token.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try session.withConnection { sql in try historyLog(after: descriptor.after, sql) }
            .fetch(descriptor, storeIdentifier: identifier, schema: schema)
    }

    /// Deletes the transactions a descriptor selects; tokens before the newest of them expire.
    /// - Throws: as ``fetchHistory(_:)``, and `DataStoreError` `.readOnly`. Nothing is deleted then.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly, "The PostgreSQL store \(configuration.name) is read-only (allowsSave is false); no history was deleted.")
        }
        try session.transaction { sql in
            _ = try lockForWriting(sql)
            var log = try historyLog(after: descriptor.after, sql)
            let doomed = try log.delete(descriptor, storeIdentifier: identifier, schema: schema)
            guard let newest = doomed.max() else { return }
            var binds = PostgresBindings()
            binds.append(Array(doomed))
            try sql.execute(HistoryTables.deleteStatement(namespace: namespace, where: "tx = ANY($1::bigint[])"), binds)
            var watermark = PostgresBindings()
            watermark.append(newest)
            try sql.execute("UPDATE \(namespace)._store SET expired_through = GREATEST(expired_through, $1) WHERE id = 1", watermark)
        }
    }

    /// The token of the newest transaction, `nil` before the first.
    /// - Throws: `DataStoreError` `.ioFailure`.
    public func currentHistoryToken() throws -> DefaultHistoryToken? {
        let last = try session.withConnection { sql in
            try sql.query("SELECT last_tx FROM \(namespace)._store WHERE id = 1").first?.decode(Int64.self) ?? 0
        }
        return last == 0 ? nil : DefaultHistoryToken(storeIdentifier: identifier, transactionNumber: last)
    }

    /// The counter, the watermark and the records after `token` (all when `nil`), as a
    /// `HistoryLog` that checks the token.
    func historyLog(after token: DefaultHistoryToken?, _ sql: SQLConnection) throws -> HistoryLog {
        // One statement, so one snapshot: the counter and watermark with the transactions after
        // the token's position and their changes, a row per change (a position this store does
        // not know reads from 0, and the check below throws). The changes are joined `LATERAL`,
        // so that each transaction's are read by `_changes`' primary key: a plain join was
        // planned as a hash join over a scan of every change of the store (the table has no
        // statistics before its first ANALYZE), most of a read of 100 transactions of 10,000.
        let position = token?.positions[identifier] ?? 0
        var binds = StatementBinds()
        binds.append(position)
        let rows = try sql.queryPrepared("""
            SELECT s.last_tx, s.expired_through, h.tx, h.ts, h.author, h.bundle, h.process, \(HistoryTables.changeColumns) \
            FROM \(namespace)._store s LEFT JOIN \(namespace)._history h ON h.tx > $1::bigint \
            LEFT JOIN LATERAL (SELECT * FROM \(namespace)._changes c WHERE c.tx = h.tx OFFSET 0) c ON true WHERE s.id = 1 ORDER BY h.tx, c.position
            """, binds)
        var last: Int64?, expiredThrough: Int64 = 0
        var records: [HistoryRecord] = []
        let table = "\(configuration.namespace)._changes"
        for row in rows {
            // Cell by cell: a tuple decode instantiates generic metadata at run time, per row.
            let cells = row.binaryCells
            last = try cells[0].decode(Int64.self)
            expiredThrough = try cells[1].decode(Int64.self)
            guard let number = try cells[2].decode(Int64?.self) else { continue }
            if records.last?.transactionNumber != number {
                records.append(HistoryRecord(
                    transactionNumber: number, author: try cells[4].decode(String?.self),
                    timestamp: Date(timeIntervalSince1970: try cells[3].decode(Double.self)),
                    bundleIdentifier: try cells[5].decode(String.self), processIdentifier: try cells[6].decode(String.self), changes: []))
            }
            if let change = try HistoryTables.change(from: cells, at: 7, table: table) {
                records[records.count - 1].changes.append(change)
            }
        }
        guard let last else { throw DataStoreError(.corruptStore, "The table _store of \(configuration.name) is empty.") }
        if let token, let mine = token.positions[identifier] {
            try HistoryLog.check(mine, lastTransactionNumber: last, expiredThrough: expiredThrough, storeIdentifier: identifier)
        }
        return HistoryLog(records: records, lastTransactionNumber: last, expiredThrough: expiredThrough)
    }
}
#endif
