#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import PostgresNIO
import StoreBuildingBlocks
import StoreProtocol

/// A `DataStore` with full history in a PostgreSQL database, shared by any number of processes
/// on any number of machines.
///
/// Tables (in the configuration's namespace): one per entity, a column per attribute (see the package README), `_store`
/// (the store's identifier, the history counter and watermark, the recorded `StoredSchema`),
/// `_history` (one row per transaction: number, time, author) and `_changes` (one row per change,
/// with updated attributes and tombstones).
///
/// - A save is one SQL transaction, durable when it returns: all or nothing.
/// - Fetches render the translated query as SQL where PostgreSQL computes what Swift does
///   (`WHERE`, `ORDER BY`, `LIMIT`/`OFFSET`, `count(*)`), with bound parameters, and evaluate
///   the rest in memory.
/// - History numbers are given in commit order (see ``save(_:)``), so that a reader following
///   tokens never misses or repeats a transaction.
///
/// Every method blocks its caller's thread until the server answers;
/// do not call it from a SwiftNIO event loop thread.
public final class PostgresStore: DataStore, HistoryProviding, @unchecked Sendable {
    // @unchecked: the mutable state is `recorded`, behind its lock; the session locks itself.
    public typealias Snapshot = DefaultSnapshot
    public typealias HistoryType = DefaultHistoryTransaction

    /// The configuration the store was opened with.
    public let configuration: PostgresStoreConfiguration
    /// The store's identifier, made when its tables were created and kept in `_store`.
    public let identifier: String
    /// The model types the store holds.
    public let schema: Schema
    let session: PostgresSession
    /// The connection and turn-taking of ``withExclusiveAccess(_:)``.
    let exclusiveAccess: ExclusiveAccessConnection
    let tables: [String: EntityTable]
    let storedSchema: StoredSchema
    /// `"namespace"`.
    let namespace: String
    /// What the store last read of `_store`: the recorded schema and its generation, which a
    /// migration increments (another process's migration is noticed by it).
    let recorded: NSLockedValue<(schema: StoredSchema, generation: Int64)>
    /// Whether a save of new models is planned without `SnapshotTable` (``newRowsPlan(_:)``);
    /// off, as the reference the tests compare with, every save goes through `SnapshotTable.apply`.
    let plansNewRowsDirectly = NSLockedValue(true)
    /// How many saves were planned by ``newRowsPlan(_:)``: the tests' evidence that the direct
    /// plan ran, not the general way behind it.
    let directPlansMade = NSLockedValue(0)

    /// Opens the store, creating its namespace and tables when they do not exist (in one
    /// transaction, under the store's lock, so that processes opening it at once agree).
    ///
    /// - Throws: `DataStoreError` `.ioFailure` when the server cannot be reached;
    ///   `.invalidConfiguration` for a refused login, a missing database, or tables of the same
    ///   names that this store did not create (the message names them; nothing is changed);
    ///   `.invalidSchema` without a schema, or for an entity name or namespace longer than
    ///   PostgreSQL's 63 bytes; `.invalidConfiguration` for a namespace or entity name holding a
    ///   NUL character, a `connectTimeout` that is not between zero and a day, a role without
    ///   the rights to create a new store's tables, or a table whose columns (names or types)
    ///   were changed by something else than a PostgresStore.
    ///
    /// Opening a store that exists creates and changes nothing, so with a read-only
    /// configuration (`allowsSave: false`) a role that may only read (`USAGE` on the namespace,
    /// `SELECT` on its tables) opens it. A new store's tables are created, read-only or not.
    public init(_ configuration: PostgresStoreConfiguration) throws {
        guard let schema = configuration.schema else {
            throw DataStoreError(.invalidSchema, "PostgresStore '\(configuration.name)' needs a schema; open it through a ModelContainer.")
        }
        // PostgreSQL cuts identifiers at 63 bytes, silently: two long names would share a table,
        // and a reopened store would not find its tables under their whole names.
        let tooLong = ([configuration.namespace] + schema.entities.map(\.name)).filter { $0.utf8.count > 63 }
        guard tooLong.isEmpty else {
            throw DataStoreError(.invalidSchema,
                "PostgreSQL cuts names at 63 bytes, and \(tooLong.map { "'\($0)'" }.joined(separator: ", ")) \(tooLong.count == 1 ? "is" : "are") longer: "
                + "give the model a shorter `static var entityName` (or the store a shorter namespace). Nothing was changed.")
        }
        if let unsendable = ([configuration.namespace] + schema.entities.map(\.name)).first(where: { !SQLName.holdsNoNUL($0) }) {
            throw DataStoreError(.invalidConfiguration,
                "The name \(String(reflecting: unsendable)) holds a NUL character, which no PostgreSQL name can: "
                + "give the store another namespace (or the model another `static var entityName`). Nothing was sent.")
        }
        try configuration.checkConnectTimeout()
        self.configuration = configuration
        self.schema = schema
        storedSchema = StoredSchema(schema)
        namespace = SQLName.quote(configuration.namespace)
        var tables: [String: EntityTable] = [:]
        for recordedEntity in storedSchema.entities {
            tables[recordedEntity.name] = EntityTable(recorded: recordedEntity, namespace: configuration.namespace)
        }
        self.tables = tables
        session = PostgresSession(configuration)
        exclusiveAccess = ExclusiveAccessConnection(session: session)
        let ns = namespace, rawNamespace = configuration.namespace, stored = storedSchema
        let opened = try session.transaction { sql -> (String, StoredSchema, Int64) in
            try Self.lock(sql, namespace: rawNamespace)
            let existingTypes = try Self.existingColumnTypes(sql, namespace: rawNamespace)
            let existing = existingTypes.mapValues { Set($0.keys) }
            if existing["_store"] == nil {
                // A new store, read-only or not (a read-only one reads as empty): its tables need
                // the rights to create them. The namespace is created only when missing:
                // `CREATE SCHEMA IF NOT EXISTS` needs the right to create schemas even when it exists.
                var name = PostgresBindings()
                name.append(rawNamespace)
                if try sql.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", name).first == nil {
                    try sql.execute("CREATE SCHEMA \(ns)")
                }
                // A new store: no table of ours may exist yet.
                let clashes = tables.keys.sorted().filter { existing[$0] != nil } + HistoryTables.names.filter { existing[$0] != nil }
                if !clashes.isEmpty {
                    throw DataStoreError(.invalidConfiguration,
                        "The database \(configuration.database) already has the table(s) \(clashes.map { "\(rawNamespace).\($0)" }.joined(separator: ", ")) "
                        + "(columns: \(clashes.map { existing[$0]!.sorted().joined(separator: ", ") }.joined(separator: "; "))), which this store did not "
                        + "create. Give the store a namespace of its own (?schema=NAME, or `namespace:`) or another database; nothing was changed.")
                }
                let identifier = UUID().uuidString
                try sql.execute("""
                    CREATE TABLE \(ns)._store (id int PRIMARY KEY, store_id text NOT NULL, last_tx bigint NOT NULL, \
                    expired_through bigint NOT NULL, schema_json text NOT NULL, generation bigint NOT NULL)
                    """)
                for statement in HistoryTables.createStatements(namespace: ns) { try sql.execute(statement) }
                try sql.execute("CREATE SEQUENCE \(ns)._rows_seq")
                try sql.execute("CREATE SEQUENCE \(ns)._history_seq")
                for table in tables.values.sorted(by: { $0.entityName < $1.entityName }) {
                    for statement in table.createStatements() { try sql.execute(statement) }
                }
                var binds = PostgresBindings()
                binds.append(identifier)
                binds.append(try Self.encodeSchema(stored))
                try sql.execute("INSERT INTO \(ns)._store VALUES (1, $1, 0, 0, $2, 1)", binds)
                return (identifier, stored, 1)
            }
            let row = try sql.query("SELECT store_id, schema_json, generation FROM \(ns)._store WHERE id = 1")
            guard let first = row.first else {
                throw DataStoreError(.corruptStore, "The table \(rawNamespace)._store is empty: it was changed by something else than a PostgresStore.")
            }
            let (storeID, schemaText, generation) = try first.decode((String, String, Int64).self)
            let recorded = try Self.decodeSchema(schemaText)
            if !recorded.needsMigration(toHold: stored) {
                for table in tables.values {
                    guard let columns = existing[table.entityName] else {
                        throw DataStoreError(.corruptStore, "The table \(rawNamespace).\(table.entityName) is missing though the store's recorded schema holds it; it was dropped by something else.")
                    }
                    guard columns == table.columnNames else {
                        throw DataStoreError(.invalidConfiguration,
                            "The table \(rawNamespace).\(table.entityName) has the columns \(columns.sorted().joined(separator: ", ")), not those this store "
                            + "keeps (\(table.columnNames.sorted().joined(separator: ", "))): it was changed by something else. Use another namespace; nothing was changed.")
                    }
                    // A changed type would let saves succeed and every fetch then fail to read.
                    let changed = table.columnTypes.filter { existingTypes[table.entityName]?[$0.key] != $0.value }.keys.sorted()
                    guard changed.isEmpty else {
                        throw DataStoreError(.invalidConfiguration,
                            "The table \(rawNamespace).\(table.entityName) has " + changed.map { "the column \($0) of type \(existingTypes[table.entityName]?[$0] ?? "?")" }.joined(separator: ", ")
                            + ", where this store keeps " + changed.map { "\(table.columnTypes[$0] ?? "?")" }.joined(separator: ", ")
                            + ": it was changed by something else. Change it back (ALTER TABLE … ALTER COLUMN … TYPE …) or use another namespace; nothing was changed.")
                    }
                }
            }
            return (storeID, recorded, generation)
        }
        identifier = opened.0
        recorded = NSLockedValue((opened.1, opened.2))
    }

    // MARK: Shared SQL

    /// Locks the store's `_store` row to the commit (`SELECT … FOR UPDATE`): writers of one store
    /// (saves, history deletions, erase, migration) take turns from here to their commit. Returns
    /// the row as the newest commit left it (PostgreSQL reads a row again after waiting for its
    /// lock), in the same round trip.
    func lockForWriting(_ sql: SQLConnection) throws -> (generation: Int64, lastNumber: Int64, expiredThrough: Int64) {
        try readStoreRow(sql, forUpdate: true)
    }

    /// The generation, the history counter and the watermark; `forUpdate` locks the row.
    func readStoreRow(_ sql: SQLConnection, forUpdate: Bool) throws -> (generation: Int64, lastNumber: Int64, expiredThrough: Int64) {
        try storeRow(sql.wait(try sendStoreRowRead(sql, forUpdate: forUpdate)))
    }

    /// Sends ``readStoreRow(_:forUpdate:)``'s statement without waiting; ``storeRow(_:)`` reads its answer.
    /// Prepared: it is every save's first statement.
    /// - Throws: `DataStoreError` when its preparation fails.
    func sendStoreRowRead(_ sql: SQLConnection, forUpdate: Bool) throws -> SQLConnection.Sent {
        try sql.sendPrepared("SELECT generation, last_tx, expired_through FROM \(namespace)._store WHERE id = 1\(forUpdate ? " FOR UPDATE" : "")", StatementBinds())
    }

    /// The answer of ``sendStoreRowRead(_:forUpdate:)``.
    func storeRow(_ rows: [PostgresRow]) throws -> (generation: Int64, lastNumber: Int64, expiredThrough: Int64) {
        guard let row = rows.first else { throw DataStoreError(.corruptStore, "The table _store of \(configuration.name) is empty.") }
        let cells = row.binaryCells
        guard cells.count == 3 else { throw DataStoreError(.corruptStore, "A read of _store of \(configuration.name) answered \(cells.count) columns.") }
        return (try cells[0].decode(Int64.self), try cells[1].decode(Int64.self), try cells[2].decode(Int64.self))
    }

    /// Takes the store's transaction-scoped advisory lock, which opening (creating the tables)
    /// and migration take before anything else, so that an open never sees a migration half done.
    static func lock(_ sql: SQLConnection, namespace: String) throws {
        var binds = PostgresBindings()
        binds.append("PostgresStore:" + namespace)
        try sql.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", binds)
    }

    /// Column names of the namespace's tables, by table.
    static func existingColumns(_ sql: SQLConnection, namespace: String) throws -> [String: Set<String>] {
        try existingColumnTypes(sql, namespace: namespace).mapValues { Set($0.keys) }
    }

    /// The type of every column of the namespace's tables (as `information_schema` spells it:
    /// `bigint`, `text`, `double precision`), by table and column.
    static func existingColumnTypes(_ sql: SQLConnection, namespace: String) throws -> [String: [String: String]] {
        var binds = PostgresBindings()
        binds.append(namespace)
        var columns: [String: [String: String]] = [:]
        for row in try sql.query("SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = $1", binds) {
            let (table, column, type) = try row.decode((String, String, String).self)
            columns[table, default: [:]][column] = type
        }
        return columns
    }

    static func encodeSchema(_ schema: StoredSchema) throws -> String {
        String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
    }

    static func decodeSchema(_ text: String) throws -> StoredSchema {
        do {
            return try JSONDecoder().decode(StoredSchema.self, from: Data(text.utf8))
        } catch {
            throw DataStoreError(.corruptStore, "The recorded schema in _store does not read: \(error).")
        }
    }

    /// The generation this store reads its rows as; throws while they wait for a migration.
    func requireMigrated() throws -> Int64 {
        let state = recorded.value
        guard !state.schema.needsMigration(toHold: storedSchema) else { throw incompatible() }
        return state.generation
    }

    func incompatible() -> DataStoreError {
        DataStoreError(.incompatibleSchema,
            "The PostgreSQL store \(configuration.name) holds data of another schema than this container's "
            + "(\(recorded.value.schema.version.map { "version \($0)" } ?? "unversioned")). Open it through a ModelContainer, which migrates it; "
            + "if another process migrated it to a newer schema meanwhile, open it again with that schema. Nothing was read or written.")
    }

    /// The store's generation as `_store` holds it now, remembered with its schema.
    /// - Throws: `.incompatibleSchema` when another process migrated the store to a schema that
    ///   does not hold this one's.
    @discardableResult
    func refreshGeneration(_ sql: SQLConnection) throws -> Int64 {
        let rows = try sql.query("SELECT generation, schema_json FROM \(namespace)._store WHERE id = 1")
        guard let row = rows.first else { throw DataStoreError(.corruptStore, "The table _store of \(configuration.name) is empty.") }
        let (generation, schemaText) = try row.decode((Int64, String).self)
        if generation != recorded.value.generation {
            recorded.value = (try Self.decodeSchema(schemaText), generation)
        }
        if recorded.value.schema.needsMigration(toHold: storedSchema) { throw incompatible() }
        return generation
    }

    func table(_ entityName: String) throws -> EntityTable {
        guard let table = tables[entityName] else { throw DataStoreError(.unknownEntity, "The store \(configuration.name) holds no entity \(entityName) (it holds \(schema)).") }
        return table
    }
}

/// A value behind a lock.
final class NSLockedValue<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched while `lock` is held.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    /// Changes the value in place, under the lock.
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
#endif
