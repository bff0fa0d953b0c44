import Foundation
import PostgresNIO
import StoreBuildingBlocks
import StoreProtocol

extension PostgresStore {
    /// Applies a save as one SQL transaction, durable when it returns: all or nothing.
    ///
    /// Under the store's lock (the `_store` row, locked `FOR UPDATE` to the commit, see
    /// `lockForWriting`), it reads the stored rows the save touches (by primary key, and by
    /// unique constraint for inserts), applies the save to them with `SnapshotTable`'s semantics
    /// (an insert matching a stored row's id or unique values updates that row; an update takes
    /// only the attributes its `updatedAttributes` names into the row as read under the lock, so
    /// what another process saved meanwhile to other attributes stays), writes the rows that
    /// changed, and records the history transaction with the next number.
    ///
    /// **Why the lock (the sequence-gap hazard).** A number taken from a sequence is given at
    /// one instant and becomes visible at another, its commit: writer A takes 5, writer B takes
    /// 6 and commits first, a reader reads past 4, sees 6, moves its token to 6, and never sees 5.
    /// Numbering under a lock held until commit gives numbers in commit order: no transaction
    /// commits with a number below one already visible, so reading `tx > token` never misses
    /// one, and never repeats one. The price is that writers of one store commit one at a time
    /// (a save holds the lock for its few statements, not for the caller's work); writers of
    /// different stores (namespaces) do not wait for each other. The lock also makes the unique
    /// constraint checks of concurrent inserts see each other's rows. Taking it is the save's
    /// first statement, which also reads the counter: no round trip of its own.
    ///
    /// - Throws: `DataStoreError` `.readOnly`; `.unknownEntity`; `.constraintViolation` when an
    ///   update would give two rows the same unique values; `.ioFailure` when the server cannot be
    ///   reached or the connection breaks (the message says whether the commit may have
    ///   happened); `.incompatibleSchema` when another process migrated the store. Nothing is
    ///   changed then.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly, "The PostgreSQL store \(configuration.name) is read-only (allowsSave is false); nothing was saved.")
        }
        let expectedGeneration = try requireMigrated()
        guard !request.isEmpty else { return DataStoreSaveChangesResult(for: identifier) }
        for snapshot in request.inserted + request.updated + request.deleted {
            _ = try table(snapshot.persistentIdentifier.entityName)
        }
        // New models of entities without unique constraints (the common save): written without
        // reading stored rows first, `ON CONFLICT (_pk) DO NOTHING`; should one exist after all,
        // the transaction is rolled back and the save made again the general way.
        let onlyNewRows = request.updated.isEmpty && request.deleted.isEmpty
            && request.inserted.allSatisfy { tables[$0.persistentIdentifier.entityName]?.uniqueConstraintCount == 0 }
        if onlyNewRows {
            do {
                return try save(request, expectedGeneration: expectedGeneration, readingStoredRows: false)
            } catch is StoredRowFound {
                // An inserted model's id is stored: an update, which the general way makes.
            }
        }
        return try save(request, expectedGeneration: expectedGeneration, readingStoredRows: true)
    }

    /// Thrown (and caught by ``save(_:)``) when a save that assumed new rows found a stored one.
    struct StoredRowFound: Error {}

    /// A save in one transaction; `readingStoredRows: false` assumes that no inserted model is
    /// stored (throwing ``StoredRowFound`` when one is, which rolls the transaction back).
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>, expectedGeneration: Int64,
              readingStoredRows: Bool) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let ordered = !configuration.unorderedHistoryNumbersForTesting
        return try session.transaction { sql in
            let (generation, lastNumber, expiredThrough) = try readStoreRow(sql, forUpdate: ordered)
            if generation != expectedGeneration { try refreshGeneration(sql) }

            // The stored rows this save can touch, into a table of their own.
            var partial = SnapshotTable(schema: schema, keepsAttributeIndexes: false)
            var existed: Set<PersistentIdentifier> = []
            if readingStoredRows {
                for snapshot in try storedRows(touchedBy: request, sql) {
                    try partial.write(snapshot)
                    existed.insert(snapshot.persistentIdentifier)
                }
            }
            let outcome = try partial.apply(request, storeIdentifier: identifier)
            guard !outcome.changes.isEmpty else { return outcome.result }

            // Each changed row's final state, written once: per entity one DELETE, one UPDATE and
            // one INSERT of all its rows (inserts take the next insertion sequences in the order
            // of their first change).
            var written: Set<PersistentIdentifier> = []
            var writes: [String: (deletes: [String], updates: [DefaultSnapshot], inserts: [DefaultSnapshot])] = [:]
            var entityOrder: [String] = []
            for change in outcome.changes {
                let id = change.persistentIdentifier
                guard written.insert(id).inserted else { continue }
                if writes[id.entityName] == nil {
                    writes[id.entityName] = ([], [], [])
                    entityOrder.append(id.entityName)
                }
                switch (existed.contains(id), partial.snapshot(for: id)) {
                case (true, nil): writes[id.entityName]?.deletes.append(try PrimaryKeyText.text(id.primaryKey))
                case (true, let row?): writes[id.entityName]?.updates.append(row)
                case (false, let row?): writes[id.entityName]?.inserts.append(row)
                case (false, nil): break
                }
            }
            for entityName in entityOrder {
                guard let write = writes[entityName] else { continue }
                let table = try table(entityName)
                if !write.deletes.isEmpty {
                    var binds = PostgresBindings()
                    binds.append(write.deletes)
                    try sql.execute("DELETE FROM \(table.qualifiedName) WHERE _pk = ANY($1::text[])", binds)
                }
                try updateRows(write.updates, in: table, sql)
                let inserted = try insertRows(write.inserts, into: table, sql)
                if inserted < write.inserts.count {
                    guard readingStoredRows else { throw StoredRowFound() }
                    // Under the lock every stored row the save names was read: only a writer
                    // that does not take the lock (another program) can have stored it meanwhile.
                    throw DataStoreError(.constraintViolation,
                        "A model this save inserts was stored in \(table.qualifiedName) by a writer that does not take the store's lock; nothing was saved.")
                }
            }

            // The history transaction.
            let number: Int64
            if ordered {
                number = lastNumber + 1
            } else {
                number = try sql.query("SELECT nextval(\(SQLName.regclass(namespace + "._history_seq")))").first!.decode(Int64.self)
            }
            // One statement: the transaction, its changes, the counter, and the notification
            // (delivered on commit).
            let record = HistoryRecord(transactionNumber: number, author: request.editingState.author, timestamp: Date(), changes: outcome.changes)
            var binds = historyBinds(record)
            binds.append(notificationChannel)
            binds.append(String(number))
            for column in try HistoryTables.changeArrays(record.changes).columns { binds.append(column) }
            try sql.execute("""
                WITH h AS (INSERT INTO \(namespace)._history (tx, ts, author, bundle, process) VALUES ($1, $2, $3, $4, $5)), \
                c AS (\(HistoryTables.insertChanges(namespace: namespace, tx: 1, first: 8))), \
                s AS (UPDATE \(namespace)._store SET last_tx = GREATEST(last_tx, $1) WHERE id = 1) SELECT pg_notify($6, $7)
                """, binds)
            try applyRetention(sql, expiredThrough: expiredThrough)
            return outcome.result
        }
    }

    /// The stored rows a save can touch: those of the ids it names, and those holding the unique
    /// values of the models it inserts; one statement per entity.
    func storedRows(touchedBy request: DataStoreSaveChangesRequest<DefaultSnapshot>, _ sql: SQLConnection) throws -> [DefaultSnapshot] {
        var wanted: [String: (keys: [String], uniques: [[String]])] = [:]
        for snapshot in request.inserted + request.updated + request.deleted {
            let id = snapshot.persistentIdentifier
            wanted[id.entityName, default: ([], [])].keys.append(try PrimaryKeyText.text(id.primaryKey))
        }
        for snapshot in request.inserted {
            let table = try table(snapshot.persistentIdentifier.entityName)
            guard table.uniqueConstraintCount > 0 else { continue }
            var uniques = wanted[table.entityName]?.uniques ?? []
            if uniques.isEmpty { uniques = Array(repeating: [], count: table.uniqueConstraintCount) }
            for constraint in 0..<table.uniqueConstraintCount {
                if let key = try table.uniqueKey(constraint, in: snapshot.values) { uniques[constraint].append(key) }
            }
            wanted[table.entityName]?.uniques = uniques
        }
        var rows: [DefaultSnapshot] = []
        for (entityName, wanted) in wanted.sorted(by: { $0.key < $1.key }) {
            let table = try table(entityName)
            var binds = PostgresBindings()
            binds.append(wanted.keys)
            var conditions = ["_pk = ANY($1::text[])"]
            for (constraint, keys) in wanted.uniques.enumerated() where !keys.isEmpty {
                binds.append(keys)
                conditions.append("_u\(constraint) = ANY($\(binds.count)::text[])")
            }
            for row in try sql.query("SELECT \(table.selectList) FROM \(table.qualifiedName) WHERE \(conditions.joined(separator: " OR "))", binds) {
                rows.append(try table.snapshot(from: row, at: 0))
            }
        }
        return rows
    }

    /// How many rows one statement writes: the arrays of 5,000 rows stay a few hundred kilobytes.
    static let rowsPerStatement = 5_000

    /// Inserts new rows with the next insertion sequences, in their order: `INSERT … SELECT …
    /// FROM unnest(…)` with one array parameter per column (``ColumnArrays``), one statement per
    /// ``rowsPerStatement`` rows. A row whose primary key is stored is skipped (`ON CONFLICT
    /// DO NOTHING`); returns how many were inserted.
    @discardableResult
    func insertRows(_ rows: [DefaultSnapshot], into table: EntityTable, _ sql: SQLConnection) throws -> Int {
        let columns = ["_pk"] + table.rowColumns
        let aliases = columns.indices.map { "c\($0)" }
        // `nextval` runs once per row, in the order unnest gives the rows: the order of `rows`.
        let selected = ["v.c0", "nextval(\(SQLName.regclass(namespace + "._rows_seq")))"] + aliases.dropFirst().map { "v.\($0)" }
        let statement = "INSERT INTO \(table.qualifiedName) (_pk, _seq, \(table.rowColumns.joined(separator: ", "))) "
            + "SELECT \(selected.joined(separator: ", ")) FROM \(table.unnest) AS v(\(aliases.joined(separator: ", "))) "
            + "ON CONFLICT (_pk) DO NOTHING RETURNING 1"
        var inserted = 0
        for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
            var arrays = ColumnArrays(elementTypes: [.text] + table.rowElementTypes)
            for row in rows[start..<min(rows.count, start + Self.rowsPerStatement)] {
                arrays.bind(try PrimaryKeyText.text(row.persistentIdentifier.primaryKey))
                try table.bindRow(row.values, into: &arrays)
            }
            let counted = try sql.query("WITH inserted AS (\(statement)) SELECT count(*) FROM inserted", arrays.bindings)
            inserted += Int(try counted.first?.decode(Int64.self) ?? 0)
        }
        return inserted
    }

    /// Writes stored rows' new values: `UPDATE … FROM unnest(…)` matching the primary keys, one
    /// statement per ``rowsPerStatement`` rows.
    func updateRows(_ rows: [DefaultSnapshot], in table: EntityTable, _ sql: SQLConnection) throws {
        let aliases = (0...table.rowColumns.count).map { "c\($0)" }
        let assignments = table.rowColumns.enumerated().map { "\($0.element) = v.c\($0.offset + 1)" }
        let statement = "UPDATE \(table.qualifiedName) AS t SET \(assignments.joined(separator: ", ")) "
            + "FROM \(table.unnest) AS v(\(aliases.joined(separator: ", "))) WHERE t._pk = v.c0"
        for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
            var arrays = ColumnArrays(elementTypes: [.text] + table.rowElementTypes)
            for row in rows[start..<min(rows.count, start + Self.rowsPerStatement)] {
                arrays.bind(try PrimaryKeyText.text(row.persistentIdentifier.primaryKey))
                try table.bindRow(row.values, into: &arrays)
            }
            try sql.execute(statement, arrays.bindings)
        }
    }

    /// Removes every row and all history. The erase takes a transaction number of its own and
    /// history is expired through it, as `HistoryLog.removeAll()` does: every token taken before
    /// is expired (the newest one too), and numbers keep rising.
    /// - Throws: `DataStoreError` `.readOnly`, `.ioFailure`; nothing is changed then.
    public func erase() throws {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly, "The PostgreSQL store \(configuration.name) is read-only (allowsSave is false); nothing was erased.")
        }
        try session.transaction { sql in
            _ = try lockForWriting(sql)
            let names = tables.values.map(\.qualifiedName).sorted()
            if !names.isEmpty { try sql.execute("TRUNCATE \(names.joined(separator: ", "))") }
            try sql.execute("TRUNCATE \(namespace)._history, \(namespace)._changes")
            try sql.execute("UPDATE \(namespace)._store SET last_tx = last_tx + 1, expired_through = last_tx + 1 WHERE id = 1")
        }
    }

    /// The `NOTIFY` channel of this store's saves.
    var notificationChannel: String { "postgresstore_" + identifier.lowercased().replacingOccurrences(of: "-", with: "") }

    /// A history record's `_history` columns as parameters $1…$5: tx, ts, author, bundle, process.
    func historyBinds(_ record: HistoryRecord) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(record.transactionNumber)
        binds.append(record.timestamp.timeIntervalSince1970)
        binds.append(record.author)
        binds.append(record.bundleIdentifier)
        binds.append(record.processIdentifier)
        return binds
    }

    /// Deletes what the configuration's retention no longer keeps, in the save's transaction.
    func applyRetention(_ sql: SQLConnection, expiredThrough: Int64) throws {
        let retention = configuration.historyRetention
        var bound: Int64 = 0
        if let maximum = retention.maximumTransactions {
            var binds = PostgresBindings()
            binds.append(Int64(max(0, maximum)))
            if let row = try sql.query("SELECT tx FROM \(namespace)._history ORDER BY tx DESC OFFSET $1 LIMIT 1", binds).first {
                bound = max(bound, try row.decode(Int64.self))
            }
        }
        if let age = retention.maximumAge {
            var binds = PostgresBindings()
            binds.append(Date().addingTimeInterval(-age).timeIntervalSince1970)
            if let row = try sql.query("SELECT max(tx) FROM \(namespace)._history WHERE ts < $1", binds).first,
               let newest = try row.decode(Int64?.self) {
                bound = max(bound, newest)
            }
        }
        guard bound > expiredThrough else { return }
        var binds = PostgresBindings()
        binds.append(bound)
        try sql.execute(HistoryTables.deleteStatement(namespace: namespace, where: "tx <= $1"), binds)
        try sql.execute("UPDATE \(namespace)._store SET expired_through = GREATEST(expired_through, $1) WHERE id = 1", binds)
    }

}
