import Foundation
import PostgresNIO
import StoreProtocol

extension PostgresStore {
    /// The schema `_store` records, as of the last read (open, migration, or an operation that
    /// noticed another process's migration).
    public var recordedSchema: StoredSchema? { recorded.value.schema }

    /// Migrates the rows and the history to `request.schema` in one SQL transaction (PostgreSQL's
    /// DDL is transactional): a failure or a crash at any instant leaves the store as it was or
    /// as migrated.
    ///
    /// Every row is read, passed through `request.migrateRows(_:)` (lightweight changes and custom
    /// stages alike), and written into tables made for the new schema, which replace the old ones;
    /// history records go through `request.migrate(_:)`. Rows are documents plus derived
    /// columns, so a column-only `ALTER TABLE` would not migrate the documents: the tables are
    /// rebuilt instead. Other processes that have the store open with the old schema get
    /// `DataStoreError` `.incompatibleSchema` from their next operation.
    ///
    /// Cost: the whole store is read and written once, on the server, in one transaction.
    /// - Throws: `DataStoreError` `.readOnly`; `.incompatibleSchema` when migrated rows break a
    ///   unique constraint (naming the row) or another process migrated the store to another
    ///   schema meanwhile; what a custom stage throws; `.ioFailure`. Nothing is changed then.
    public func migrate(_ request: DataStoreMigrationRequest) throws {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly,
                "The PostgreSQL store \(configuration.name) needs migrating to this container's schema but is read-only "
                + "(allowsSave is false). Open it once with saving allowed; nothing was changed.")
        }
        let rawNamespace = configuration.namespace
        let result = try session.transaction { sql -> (StoredSchema, Int64) in
            try Self.lock(sql, namespace: rawNamespace)
            _ = try lockForWriting(sql)
            guard let row = try sql.query("SELECT schema_json, generation FROM \(namespace)._store WHERE id = 1").first else {
                throw DataStoreError(.corruptStore, "The table _store of \(configuration.name) is empty.")
            }
            let (schemaText, generation) = try row.decode((String, Int64).self)
            let current = try Self.decodeSchema(schemaText)
            if !current.isUnrecorded, current.holds(storedSchema) { return (current, generation) }   // another process did it
            guard current.isUnrecorded || current.hasSameContent(as: request.recordedSchema) else {
                throw DataStoreError(.incompatibleSchema,
                    "The PostgreSQL store \(configuration.name) was migrated to another schema by another process while this one opened it. "
                    + "Open it again; nothing was changed.")
            }
            // Every row of every entity table in the namespace, in insertion order, read with
            // the layout of the schema recorded before (or as kept rows of a foreign entity).
            let existing = try Self.existingColumns(sql, namespace: rawNamespace)
            let entityTables = existing.filter { $0.value.isSuperset(of: EntityTable.systemColumns) }
            var rows: [String: [[String: SnapshotValue]]] = [:]
            for (name, columns) in entityTables.sorted(by: { $0.key < $1.key }) {
                let layouts = [current.entity(named: name).map { EntityTable(recorded: $0, entity: nil, namespace: rawNamespace) },
                               EntityTable(foreignEntity: name, namespace: rawNamespace)].compactMap { $0 }
                guard let old = layouts.first(where: { $0.columnNames == columns }) else {
                    throw DataStoreError(.corruptStore,
                        "The table \(rawNamespace).\(name) has the columns \(columns.sorted().joined(separator: ", ")), which are not those of its "
                        + "recorded schema: it was changed by something else. Nothing was migrated.")
                }
                rows[name] = try sql.query("SELECT \(old.selectList) FROM \(old.qualifiedName) ORDER BY _seq").map {
                    try old.snapshot(from: $0, at: 0).values
                }
            }
            let migrated = try request.migrateRows(rows)

            for name in entityTables.keys.sorted() {
                try sql.execute("DROP TABLE \(SQLName.quote(rawNamespace)).\(SQLName.quote(name))")
            }
            var newTables = tables
            for name in migrated.keys where newTables[name] == nil {
                // Rows of an entity the new schema still records (one a container left out) keep
                // its layout; others are kept whole in `_rest`.
                newTables[name] = request.schema.entity(named: name).map { EntityTable(recorded: $0, entity: nil, namespace: rawNamespace) }
                    ?? EntityTable(foreignEntity: name, namespace: rawNamespace)
            }
            for table in newTables.values.sorted(by: { $0.entityName < $1.entityName }) {
                for statement in table.createStatements() { try sql.execute(statement) }
            }
            try sql.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for (name, entityRows) in migrated.sorted(by: { $0.key < $1.key }) {
                guard let table = newTables[name] else { continue }
                for values in entityRows {
                    var binds = PostgresBindings()
                    binds.append(try EntityTable.json(values["id"] ?? .null))
                    try table.bindRow(values, into: &binds)
                    let placeholders = table.rowColumns.indices.map { "$\($0 + 2)" }
                    do {
                        try sql.execute("""
                            INSERT INTO \(table.qualifiedName) (_pk, _seq, \(table.rowColumns.joined(separator: ", "))) \
                            VALUES ($1, nextval('\(namespace)._rows_seq'), \(placeholders.joined(separator: ", ")))
                            """, binds)
                    } catch let error as DataStoreError where error.code == .constraintViolation {
                        throw DataStoreError(.incompatibleSchema,
                            "Migrating the PostgreSQL store \(configuration.name) to the new schema gives two \(name) rows the same unique "
                            + "values (the row with id \(values["id"] ?? .null)): \(error.message) Change the data or the migration; nothing was changed.")
                    }
                }
            }
            // History: each record through the migration.
            var records: [(Int64, String)] = []
            for row in try sql.query("SELECT tx, changes FROM \(namespace)._history ORDER BY tx") {
                let (number, text) = try row.decode((Int64, String).self)
                let changes = try Self.decodeChanges(text)
                let record = HistoryRecord(transactionNumber: number, author: nil, timestamp: Date(), changes: changes)
                let updated = request.migrate(record)
                if updated.changes != changes { records.append((number, try Self.encodeChanges(updated.changes))) }
            }
            for (number, text) in records {
                var binds = PostgresBindings()
                binds.append(number)
                binds.append(text)
                try sql.execute("UPDATE \(namespace)._history SET changes = $2 WHERE tx = $1", binds)
            }
            var binds = PostgresBindings()
            binds.append(try Self.encodeSchema(request.schema))
            guard let updated = try sql.query("UPDATE \(namespace)._store SET schema_json = $1, generation = generation + 1 WHERE id = 1 RETURNING generation", binds).first else {
                throw DataStoreError(.corruptStore, "The table _store of \(configuration.name) is empty.")
            }
            return (request.schema, try updated.decode(Int64.self))
        }
        recorded.value = result
    }
}
