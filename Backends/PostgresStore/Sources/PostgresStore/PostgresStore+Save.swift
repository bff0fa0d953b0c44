#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
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
    /// **Round trips.** Saves send their statements one after the other without waiting for each
    /// answer (the connection runs them in order), and the transaction's number is computed by the statement
    /// that records it, from the counter read under the lock. The statements are prepared once
    /// per connection (`PreparedStatements`).
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
        // reading stored rows first, with `ON CONFLICT (_pk) DO NOTHING`;
        // should one exist after all, or the store have been migrated by another process
        // meanwhile, nothing is written and the save is made again the general way.
        let onlyNewRows = request.updated.isEmpty && request.deleted.isEmpty
            && request.inserted.allSatisfy { tables[$0.persistentIdentifier.entityName]?.uniqueConstraintCount == 0 }
        if onlyNewRows {
            do {
                return try save(request, expectedGeneration: expectedGeneration, readingStoredRows: false)
            } catch is NewRowsAssumptionFailed {
                // An inserted model's id is stored (an update, which the general way makes), or
                // the generation changed (which the general way checks before it writes).
            } catch let error as DataStoreError where error.code == .incompatibleSchema {
                // A prepared statement met a table not as this schema's (another process migrated
                // the store): the general way checks the generation first, and says so.
            }
        }
        return try save(request, expectedGeneration: expectedGeneration, readingStoredRows: true)
    }

    /// Thrown (and caught by ``save(_:)``) when a save that assumed new rows of an unchanged
    /// generation found a stored row, or another generation.
    struct NewRowsAssumptionFailed: Error {}

    /// A save in one transaction; `readingStoredRows: false` assumes that no inserted model is
    /// stored and that the generation is `expectedGeneration` (throwing
    /// ``NewRowsAssumptionFailed`` when not, which rolls the transaction back).
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>, expectedGeneration: Int64,
              readingStoredRows: Bool) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let ordered = !configuration.unorderedHistoryNumbersForTesting
        return try session.transaction { sql in
            let storeRowRead = try sendStoreRowRead(sql, forUpdate: ordered)
            // Inside `withExclusiveAccess`: is its lock still held (checked under the write lock)?
            let exclusiveAccessCheck = sendExclusiveAccessCheck(sql)

            // What to write: new models straight from the request (no stored row can be
            // touched, see ``newRowsPlan(_:)``); otherwise the stored rows this save can touch,
            // read into a table of their own, with the save applied to them.
            let plan: PlannedWrites
            if !readingStoredRows, let direct = try newRowsPlan(request) {
                plan = direct
                directPlansMade.update { $0 += 1 }
            } else {
                plan = try appliedPlan(request, readingStoredRows: readingStoredRows, expectedGeneration: expectedGeneration,
                                       storeRowRead: storeRowRead, sql)
            }
            guard !plan.changes.isEmpty else {
                _ = try storeRow(sql.wait(storeRowRead))
                _ = try exclusiveAccessCheck.map { try sql.wait($0) }
                return plan.result
            }

            // Sent without waiting, in order; the inserts' counts are checked once all are
            // answered. `inserting` names the entity of an insert's count.
            var statements: [(sent: SQLConnection.Sent, inserting: String?)] = []
            for entityName in plan.entityOrder {
                guard let write = plan.writes[entityName] else { continue }
                let table = try table(entityName)
                if !write.deletes.isEmpty {
                    var binds = PostgresBindings()
                    binds.append(write.deletes)
                    statements.append((sql.send("DELETE FROM \(table.qualifiedName) WHERE _pk = ANY($1::text[])", binds), nil))
                }
                statements += try sendUpdates(write.updates, in: table, sql).map { ($0, nil) }
                statements += try sendInserts(write.inserts, into: table, sql).map { ($0, entityName) }
            }

            // The history transaction, in one statement: its number (the counter read under the
            // lock, plus one), the transaction, its changes, the counter, and the notification
            // (delivered on commit).
            let record = HistoryRecord(transactionNumber: 0, author: request.editingState.author, timestamp: Date(), changes: plan.changes)
            var binds = historyBinds(record)
            binds.append(notificationChannel)
            for column in try HistoryTables.changeArrays(record.changes).columns { binds.append(column) }
            // Prepared: every parameter is cast, as the server infers their types from the text.
            let next = ordered ? "SELECT last_tx + 1 AS tx FROM \(namespace)._store WHERE id = 1"
                : "SELECT nextval(\(SQLName.regclass(namespace + "._history_seq"))) AS tx"
            let history = try sql.sendPrepared("""
                WITH n AS MATERIALIZED (\(next)), \
                h AS (INSERT INTO \(namespace)._history (tx, ts, author, bundle, process) SELECT n.tx, $1::double precision, $2::text, $3::text, $4::text FROM n), \
                c AS (\(HistoryTables.insertChanges(namespace: namespace, number: "(SELECT tx FROM n)", first: 6))), \
                s AS (UPDATE \(namespace)._store SET last_tx = GREATEST(last_tx, (SELECT tx FROM n)) WHERE id = 1) \
                SELECT pg_notify($5::text, n.tx::text) FROM n
                """, binds)

            // The answers, in the order sent (a failed statement fails those after it): the
            // generation first (a migration by another process makes the writes fail or mean
            // something else), then each statement's.
            let (generation, _, expiredThrough) = try storeRow(sql.wait(storeRowRead))
            if !readingStoredRows && generation != expectedGeneration { throw NewRowsAssumptionFailed() }
            var inserted: [String: Int] = [:]
            for statement in statements {
                let answer = try sql.wait(statement.sent)
                if let entityName = statement.inserting { inserted[entityName, default: 0] += try Self.insertedCount(answer) }
            }
            for entityName in plan.entityOrder where (inserted[entityName] ?? 0) < plan.writes[entityName]?.inserts.count ?? 0 {
                guard readingStoredRows else { throw NewRowsAssumptionFailed() }
                // Under the lock every stored row the save names was read: only a writer that
                // does not take the lock (another program) can have stored it meanwhile.
                throw DataStoreError(.constraintViolation,
                    "A model this save inserts was stored in \(try table(entityName).qualifiedName) by a writer that does not take the store's lock; nothing was saved.")
            }
            try sql.wait(history)
            try requireExclusiveAccess(exclusiveAccessCheck, sql)
            try applyRetention(sql, expiredThrough: expiredThrough)
            return plan.result
        }
    }

    /// What a save writes, per entity in the order of its first change: the keys of rows to
    /// delete and the final states of rows to update and to insert (each changed row once); and
    /// its history changes and result.
    struct PlannedWrites {
        var changes: [HistoryRecord.Change] = []
        var result: DataStoreSaveChangesResult<DefaultSnapshot>
        var writes: [String: (deletes: [String], updates: [DefaultSnapshot], inserts: [DefaultSnapshot])] = [:]
        var entityOrder: [String] = []
    }

    /// The plan of a save of only new models with distinct ids (``save(_:)`` checked that they
    /// are of entities without unique constraints), made without `SnapshotTable`: each inserted
    /// snapshot is an insert of its values, in the request's order, as `SnapshotTable.apply`
    /// makes it on a table holding none of them (`InsertFastPathTests` compares the two).
    /// `nil` when an id repeats (the second insert is then an update of the first, which the
    /// general way makes).
    func newRowsPlan(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> PlannedWrites? {
        guard request.updated.isEmpty, request.deleted.isEmpty, plansNewRowsDirectly.value else { return nil }
        try request.checkUpdatedAttributes()
        var seen = Set<PersistentIdentifier>(minimumCapacity: request.inserted.count)
        var plan = PlannedWrites(result: DataStoreSaveChangesResult(for: identifier))
        plan.changes.reserveCapacity(request.inserted.count)
        for snapshot in request.inserted {
            let id = snapshot.persistentIdentifier
            guard seen.insert(id).inserted else { return nil }
            if plan.writes[id.entityName] == nil {
                plan.writes[id.entityName] = ([], [], [])
                plan.entityOrder.append(id.entityName)
            }
            plan.writes[id.entityName]?.inserts.append(DefaultSnapshot(persistentIdentifier: id, values: snapshot.values))
            plan.changes.append(.init(kind: .insert, entityName: id.entityName, primaryKey: id.primaryKey))
        }
        return plan
    }

    /// The plan of any save: the stored rows it can touch read (when `readingStoredRows`) into a
    /// `SnapshotTable` of their own, the save applied to them with its semantics (an insert
    /// matching a stored row's id or unique values updates that row, an update takes only the
    /// attributes it names), and the rows that changed written once in their final state.
    func appliedPlan(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>, readingStoredRows: Bool, expectedGeneration: Int64,
                     storeRowRead: SQLConnection.Sent, _ sql: SQLConnection) throws -> PlannedWrites {
        var partial = SnapshotTable(schema: schema, keepsAttributeIndexes: false)
        var existed: Set<PersistentIdentifier> = []
        if readingStoredRows {
            if try storeRow(sql.wait(storeRowRead)).generation != expectedGeneration { try refreshGeneration(sql) }
            for snapshot in try storedRows(touchedBy: request, sql) {
                try partial.write(snapshot)
                existed.insert(snapshot.persistentIdentifier)
            }
        }
        let outcome = try partial.apply(request, storeIdentifier: identifier)
        var plan = PlannedWrites(changes: outcome.changes, result: outcome.result)
        // Inserts take the next insertion sequences in the order of their first change.
        var written: Set<PersistentIdentifier> = []
        for change in outcome.changes {
            let id = change.persistentIdentifier
            guard written.insert(id).inserted else { continue }
            if plan.writes[id.entityName] == nil {
                plan.writes[id.entityName] = ([], [], [])
                plan.entityOrder.append(id.entityName)
            }
            switch (existed.contains(id), partial.snapshot(for: id)) {
            case (true, nil): plan.writes[id.entityName]?.deletes.append(try PrimaryKeyText.text(id.primaryKey))
            case (true, let row?): plan.writes[id.entityName]?.updates.append(row)
            case (false, let row?): plan.writes[id.entityName]?.inserts.append(row)
            case (false, nil): break
            }
        }
        return plan
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

    /// Sends the inserts of new rows with the next insertion sequences, in their order: `INSERT
    /// … SELECT … FROM unnest(…)` with one array parameter per column (``ColumnArrays``), one
    /// statement per ``rowsPerStatement`` rows. A row whose primary key is stored is skipped
    /// (`ON CONFLICT DO NOTHING`); each statement answers how many it inserted, as one `bigint`.
    func sendInserts(_ rows: [DefaultSnapshot], into table: EntityTable, _ sql: SQLConnection) throws -> [SQLConnection.Sent] {
        let columns = ["_pk"] + table.rowColumns
        let aliases = columns.indices.map { "c\($0)" }
        // `nextval` runs once per row, in the order unnest gives the rows: the order of `rows`.
        let selected = ["v.c0", "nextval(\(SQLName.regclass(namespace + "._rows_seq")))"] + aliases.dropFirst().map { "v.\($0)" }
        let statement = "INSERT INTO \(table.qualifiedName) (_pk, _seq, \(table.rowColumns.joined(separator: ", "))) "
            + "SELECT \(selected.joined(separator: ", ")) FROM \(table.unnest) AS v(\(aliases.joined(separator: ", "))) "
            + "ON CONFLICT (_pk) DO NOTHING RETURNING 1"
        var sent: [SQLConnection.Sent] = []
        for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
            var arrays = ColumnArrays(elementTypes: [.text] + table.rowElementTypes)
            for row in rows[start..<min(rows.count, start + Self.rowsPerStatement)] {
                arrays.bind(try PrimaryKeyText.text(row.persistentIdentifier.primaryKey))
                try table.bindRow(row.values, into: &arrays)
            }
            sent.append(try sql.sendPrepared("WITH inserted AS (\(statement)) SELECT count(*) FROM inserted", arrays.statementBinds))
        }
        return sent
    }

    /// Sends the writes of stored rows' new values: `UPDATE … FROM unnest(…)` matching the
    /// primary keys, one statement per ``rowsPerStatement`` rows.
    func sendUpdates(_ rows: [DefaultSnapshot], in table: EntityTable, _ sql: SQLConnection) throws -> [SQLConnection.Sent] {
        let aliases = (0...table.rowColumns.count).map { "c\($0)" }
        let assignments = table.rowColumns.enumerated().map { "\($0.element) = v.c\($0.offset + 1)" }
        let statement = "UPDATE \(table.qualifiedName) AS t SET \(assignments.joined(separator: ", ")) "
            + "FROM \(table.unnest) AS v(\(aliases.joined(separator: ", "))) WHERE t._pk = v.c0"
        var sent: [SQLConnection.Sent] = []
        for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
            var arrays = ColumnArrays(elementTypes: [.text] + table.rowElementTypes)
            for row in rows[start..<min(rows.count, start + Self.rowsPerStatement)] {
                arrays.bind(try PrimaryKeyText.text(row.persistentIdentifier.primaryKey))
                try table.bindRow(row.values, into: &arrays)
            }
            sent.append(try sql.sendPrepared(statement, arrays.statementBinds))
        }
        return sent
    }

    /// ``sendInserts(_:into:_:)``, waited for: how many rows were inserted.
    @discardableResult
    func insertRows(_ rows: [DefaultSnapshot], into table: EntityTable, _ sql: SQLConnection) throws -> Int {
        try sendInserts(rows, into: table, sql).reduce(0) { $0 + (try Self.insertedCount(sql.wait($1))) }
    }

    /// The answer of an insert ``sendInserts(_:into:_:)`` sent: how many rows it inserted.
    static func insertedCount(_ rows: [PostgresRow]) throws -> Int {
        guard let cell = rows.first?.binaryCells.first else { return 0 }
        return Int(try cell.decode(Int64.self))
    }

    /// ``sendUpdates(_:in:_:)``, waited for.
    func updateRows(_ rows: [DefaultSnapshot], in table: EntityTable, _ sql: SQLConnection) throws {
        for statement in try sendUpdates(rows, in: table, sql) { try sql.wait(statement) }
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

    /// A history record's `_history` columns but its number as parameters $1…$4: ts, author,
    /// bundle, process (a save computes the number in the statement that writes the record).
    func historyBinds(_ record: HistoryRecord) -> StatementBinds {
        var binds = StatementBinds()
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
#endif
