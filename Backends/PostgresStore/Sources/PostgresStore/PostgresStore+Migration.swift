#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
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
    /// Without custom stages, each entity's table changes in place where the lightweight changes
    /// (`request.changes`) allow it: `ALTER TABLE … RENAME TO` for a renamed entity, `RENAME
    /// COLUMN`, `DROP COLUMN`, `ADD COLUMN` (and one `UPDATE` setting a default), indexes built
    /// again only when they change, `DROP TABLE` for a removed entity. The few rows holding values
    /// in `_rest` are read, migrated in Swift and written back. An entity whose change cannot be
    /// said that way (a unique constraint added or removed, a default no column holds, a swap of
    /// names) and every entity under a plan with custom stages are rebuilt: every row read,
    /// passed through the migration (`request.migrateRows(_:)` with custom stages), and written
    /// into a table made for the new schema. History records go through `request.migrate(_:)`.
    /// Other processes that have the store open with the old schema get `DataStoreError`
    /// `.incompatibleSchema` from their next operation.
    ///
    /// Cost: in place, what PostgreSQL's `ALTER TABLE` costs (a column added with a default
    /// writes every row once; a rename or a drop does not); rebuilt, the table is read and
    /// written once, on the server, in one transaction.
    /// - Throws: `DataStoreError` `.readOnly`; `.incompatibleSchema` when migrated rows break a
    ///   unique constraint (naming the row) or another process migrated the store to another
    ///   schema meanwhile; `.corruptStore` when a table's columns are not those of the recorded
    ///   schema; what a custom stage throws; `.ioFailure`. Nothing is changed then.
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
            let old = try storedTables(sql, recorded: current)
            if request.hasCustomStages {
                try rebuild(old, request, sql) { rows in try request.migrateRows(rows) }
            } else {
                try migrateInPlace(old, request, sql)
            }
            // Every entity of this store's schema has its table (a new entity starts empty).
            let present = try Self.existingColumns(sql, namespace: rawNamespace)
            for table in tables.values.sorted(by: { $0.entityName < $1.entityName }) where present[table.entityName] == nil {
                for statement in table.createStatements() { try sql.execute(statement) }
            }
            // History: each record through the migration; the changes of those it changes are
            // written again.
            for record in try historyLog(after: nil, sql).records {
                let migrated = request.migrate(record)
                guard migrated.changes != record.changes else { continue }
                var binds = PostgresBindings()
                binds.append(record.transactionNumber)
                try sql.execute("DELETE FROM \(namespace)._changes WHERE tx = $1", binds)
                for column in try HistoryTables.changeArrays(migrated.changes).columns { binds.append(column) }
                try sql.execute(HistoryTables.insertChanges(namespace: namespace, tx: 1, first: 2), binds)
            }
            var binds = PostgresBindings()
            binds.append(try Self.encodeSchema(request.schema))
            guard let updated = try sql.query("UPDATE \(namespace)._store SET schema_json = $1, generation = generation + 1 WHERE id = 1 RETURNING generation", binds).first else {
                throw DataStoreError(.corruptStore, "The table _store of \(configuration.name) is empty.")
            }
            return (request.schema, try updated.decode(Int64.self))
        }
        recorded.value = result
        session.forgetPreparedStatements()
    }

    /// The layout the migrated rows of entity `name` take: the new schema's, or (for an entity it
    /// does not record) every value in `_rest`.
    func migratedLayout(_ name: String, _ request: DataStoreMigrationRequest) -> EntityTable {
        request.schema.entity(named: name).map { EntityTable(recorded: $0, namespace: configuration.namespace) }
            ?? EntityTable(foreignEntity: name, namespace: configuration.namespace)
    }

    /// The entity tables in the namespace with their layout as `recorded` says (or the layout of
    /// kept rows of an entity it does not record).
    /// - Throws: `DataStoreError` `.corruptStore` for a table whose columns are neither.
    func storedTables(_ sql: SQLConnection, recorded: StoredSchema) throws -> [String: EntityTable] {
        let rawNamespace = configuration.namespace
        var tables: [String: EntityTable] = [:]
        for (name, columns) in try Self.existingColumns(sql, namespace: rawNamespace) where columns.isSuperset(of: EntityTable.systemColumns) {
            let layouts = [recorded.entity(named: name).map { EntityTable(recorded: $0, namespace: rawNamespace) },
                           EntityTable(foreignEntity: name, namespace: rawNamespace)].compactMap { $0 }
            guard let layout = layouts.first(where: { $0.columnNames == columns }) else {
                throw DataStoreError(.corruptStore,
                    "The table \(rawNamespace).\(name) has the columns \(columns.sorted().joined(separator: ", ")), which are not those of its "
                    + "recorded schema: it was changed by something else. Nothing was migrated.")
            }
            tables[name] = layout
        }
        return tables
    }

    /// Rebuilds `old` tables: reads every row (in insertion order), migrates them with
    /// `migrateRows`, drops the tables, and writes the rows into tables of the new layouts.
    func rebuild(_ old: [String: EntityTable], _ request: DataStoreMigrationRequest, _ sql: SQLConnection,
                 migrateRows: ([String: [[String: SnapshotValue]]]) throws -> [String: [[String: SnapshotValue]]]) throws {
        var rows: [String: [[String: SnapshotValue]]] = [:]
        for (name, table) in old.sorted(by: { $0.key < $1.key }) {
            rows[name] = try sql.query("SELECT \(table.selectList) FROM \(table.qualifiedName) ORDER BY _seq").map {
                try table.snapshot(from: $0, at: 0).values
            }
        }
        let migrated = try migrateRows(rows)
        for table in old.values.sorted(by: { $0.entityName < $1.entityName }) { try sql.execute("DROP TABLE \(table.qualifiedName)") }
        try sql.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for (name, entityRows) in migrated.sorted(by: { $0.key < $1.key }) {
            let table = migratedLayout(name, request)
            for statement in table.createStatements() { try sql.execute(statement) }
            let snapshots = entityRows.map { values in
                DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: name, primaryKey: values["id"] ?? .null), values: values)
            }
            do {
                let inserted = try insertRows(snapshots, into: table, sql)
                guard inserted == snapshots.count else {
                    throw DataStoreError(.incompatibleSchema,
                        "Migrating the PostgreSQL store \(configuration.name) gives two \(name) rows the same id; nothing was changed.")
                }
            } catch let error as DataStoreError where error.code == .constraintViolation {
                // The colliding rows by id; their values only in the debug details (messages are logged).
                let collision = try Self.firstCollision(snapshots, in: table)
                throw DataStoreError(.incompatibleSchema,
                    "Migrating the PostgreSQL store \(configuration.name) to the new schema gives two \(name) rows the same unique "
                    + "values (\(collision?.rows ?? error.message)). Change the data or the migration; nothing was changed.",
                    debugDetails: collision?.values ?? error.debugDetails, underlyingError: error)
            }
        }
        try sql.execute("SET CONSTRAINTS ALL DEFERRED")
    }

    /// The first two rows with the same values of a unique constraint: the rows by their ids (for
    /// the message), and the values (for the debug details only).
    static func firstCollision(_ snapshots: [DefaultSnapshot], in table: EntityTable) throws -> (rows: String, values: String)? {
        for constraint in table.uniqueConstraints.indices {
            var seen: [String: SnapshotValue] = [:]
            for snapshot in snapshots {
                guard let key = try table.uniqueKey(constraint, in: snapshot.values) else { continue }
                let id = snapshot.persistentIdentifier.primaryKey
                if let first = seen[key] {
                    let names = table.uniqueConstraints[constraint].joined(separator: ", ")
                    return ("the rows with id \(first) and \(id) have the same \(names)", "\(names) = \(key)")
                }
                seen[key] = id
            }
        }
        return nil
    }

    /// Lightweight changes without custom stages: each table altered in place when its changes
    /// can be said as `ALTER TABLE` (``TableAlteration``), else rebuilt; removed entities dropped.
    func migrateInPlace(_ old: [String: EntityTable], _ request: DataStoreMigrationRequest, _ sql: SQLConnection) throws {
        let migration = request.rowMigration
        var alterations: [TableAlteration] = []
        var rebuilt: [String: EntityTable] = [:]
        for (name, table) in old.sorted(by: { $0.key < $1.key }) {
            guard let newName = migration.entityName(name) else {
                try sql.execute("DROP TABLE \(table.qualifiedName)")
                continue
            }
            // A rename onto another table's name (a swap) is not said in place.
            if newName != name, old[newName] != nil {
                rebuilt = old
                alterations = []
                break
            }
            if let alteration = TableAlteration(request.changes, from: table, to: migratedLayout(newName, request)) {
                alterations.append(alteration)
            } else {
                rebuilt[name] = table
            }
        }
        for alteration in alterations {
            // The rows with values in `_rest`, migrated in Swift before their columns change.
            let restRows = try sql.query("SELECT \(alteration.old.selectList) FROM \(alteration.old.qualifiedName) WHERE _rest IS NOT NULL").map {
                let snapshot = try alteration.old.snapshot(from: $0, at: 0)
                let values = migration.migrate(entity: alteration.old.entityName, values: snapshot.values)?.values ?? snapshot.values
                return DefaultSnapshot(persistentIdentifier: snapshot.persistentIdentifier, values: values)
            }
            for (statement, binds) in try alteration.statements() { try sql.execute(statement, binds) }
            try updateRows(restRows, in: alteration.new, sql)
        }
        if !rebuilt.isEmpty {
            try rebuild(rebuilt, request, sql) { rows in
                var migrated: [String: [[String: SnapshotValue]]] = [:]
                for (entity, entityRows) in rows {
                    guard let name = migration.entityName(entity) else { continue }
                    migrated[name, default: []] += entityRows.compactMap { migration.migrate(entity: entity, values: $0)?.values }
                }
                return migrated
            }
        }
    }
}
#endif
