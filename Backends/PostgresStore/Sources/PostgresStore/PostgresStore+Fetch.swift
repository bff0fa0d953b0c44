#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import PostgresNIO
import StoreBuildingBlocks
import StoreProtocol

extension PostgresStore {
    /// The snapshots a request selects.
    ///
    /// When the whole filter and sort render as SQL (see the package README), one statement does
    /// it all: `WHERE`, `ORDER BY` (insertion order for ties), `LIMIT`/`OFFSET`. Otherwise the
    /// parts that render select candidate rows, and the rest runs in memory on them
    /// (`QueryEvaluator`, which decodes models only where the predicate did not translate).
    /// - Throws: `DataStoreError` `.ioFailure` when the server cannot be reached,
    ///   `.incompatibleSchema` while the store waits for a migration; what the predicate throws.
    /// - Complexity: what the server's plan costs (indexes on the first attribute of each
    ///   `#Index` and unique constraint); an unrendered predicate reads every candidate row.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let table = try table(T.entityName)
        let rows = try select(request, table: table, countOnly: false)
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: rows.snapshots)
    }

    /// How many models a request selects: `count(*)` when the filter renders as SQL.
    /// - Throws: as ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        let table = try table(T.entityName)
        return try select(request, table: table, countOnly: true).count
    }

    /// What one fetch or count found.
    struct Selection {
        var snapshots: [DefaultSnapshot] = []
        var count = 0
    }

    /// The first two cells of a row: whether the store is of the generation the statement
    /// names, and whether inexact rows exist. Cell by cell: a tuple decode instantiates generic
    /// metadata at run time.
    static func checks(_ row: PostgresRow) throws -> (current: Bool, inexact: Bool) {
        var cells = row.makeIterator()
        guard var current = cells.next(), var inexact = cells.next() else {
            throw DataStoreError(.corruptStore, "A fetch's answer has no checks; the server answered another statement.")
        }
        // Binary whatever a prepared statement's description says (see PreparedStatements).
        current.format = .binary
        inexact.format = .binary
        return (try current.decode(Bool?.self) == true, try inexact.decode(Bool.self))
    }

    /// Runs a request: pushed down whole when it renders, else candidates and memory.
    func select<T: PersistentModel>(_ request: DataStoreFetchRequest<T>, table: EntityTable, countOnly: Bool) throws -> Selection {
        var generation = try requireMigrated()
        let query = request.query
        var renderer = SQLQueryRenderer(table: table)
        var conditions: [String] = []
        // `$0.id == value`: the one row, by primary key.
        if let key = SnapshotQuery.primaryKey(selectedBy: request.descriptor.predicate) {
            renderer.binds.append(try PrimaryKeyText.text(key))
            conditions.append("_pk = $\(renderer.binds.count)::text")
        }
        var filterComplete = true
        switch query.filter {
        case .all: break
        case .expression(let expression):
            if let rendered = renderer.render(expression) { conditions.append(rendered) } else {
                filterComplete = false
                if let part = renderer.renderConjuncts(expression) { conditions.append(part) }
            }
        case .narrowed(let expression, _):
            filterComplete = false
            if let part = renderer.renderConjuncts(expression) { conditions.append(part) }
        case .untranslated:
            filterComplete = false
        }
        var order: String? = "_seq ASC"
        switch query.sort {
        case .unsorted: break
        case .keys(let keys): order = renderer.renderSort(keys)
        case .untranslated: order = nil
        }
        let complete = filterComplete && order != nil
        let usesTyped = renderer.usesTypedColumns
        // Rows whose typed columns do not hold their values exactly are always candidates.
        var whereText = conditions.isEmpty ? "true" : conditions.joined(separator: " AND ")
        if usesTyped && !complete { whereText = "((\(whereText)) OR NOT _exact)" }
        let selectList = table.selectList
        let binds = renderer.binds
        let tableName = table.qualifiedName

        return try session.withConnection { sql in
            do {
                return try run(sql)
            } catch let error as DataStoreError where error.underlyingError.flatMap(PostgresErrors.sqlState) == "0A000" {
                // A prepared statement whose columns another process's migration retyped ("cached
                // plan must not change result type"): it is forgotten; read again, prepared anew,
                // once the generation says this schema still holds.
                try refreshGeneration(sql)
                return try run(sql)
            } catch let error as DataStoreError where error.code == .incompatibleSchema {
                // A column this schema reads is gone: say so as a migration by another process
                // when that is what happened (refreshGeneration throws), else as the error says.
                try refreshGeneration(sql)
                throw error
            }
        }

        func run(_ sql: SQLConnection) throws -> Selection {
            for _ in 0..<2 {
                var statement = binds
                statement.append(generation)
                let generationParameter = "$\(statement.count)::bigint"
                // Written so that the partial index on inexact rows answers it whatever the
                // statistics say (an `EXISTS` was planned as a scan of the table before the
                // first ANALYZE).
                let inexactTest = complete && usesTyped ? "(SELECT _pk FROM \(tableName) WHERE NOT _exact ORDER BY _pk LIMIT 1) IS NOT NULL" : "false"
                // The checks ride along as uncorrelated subqueries (computed once per statement):
                // whether the store is still of this generation, and whether rows that the typed
                // columns do not describe exactly exist.
                func checks(_ parameter: String) -> String {
                    "(SELECT generation FROM \(namespace)._store WHERE id = 1) = \(parameter), \(inexactTest)"
                }
                if complete && countOnly {
                    let result = try sql.queryPrepared("SELECT \(checks(generationParameter)), count(*) FROM \(tableName) WHERE \(whereText)", statement)
                    guard let row = result.first else { break }
                    let cells = row.binaryCells
                    guard cells.count == 3 else { throw DataStoreError(.corruptStore, "A count's answer has \(cells.count) columns; the server answered another statement.") }
                    let (current, inexact, count) = (try cells[0].decode(Bool?.self), try cells[1].decode(Bool.self), try cells[2].decode(Int64.self))
                    if current != true { generation = try refreshGeneration(sql); continue }
                    if inexact { break }
                    let offset = max(0, request.descriptor.fetchOffset ?? 0)
                    var total = max(0, Int(count) - offset)
                    if let limit = request.descriptor.fetchLimit { total = min(total, max(0, limit)) }
                    return Selection(count: total)
                }
                var page = ""
                if complete {
                    if let limit = request.descriptor.fetchLimit { statement.append(Int64(max(0, limit))); page += " LIMIT $\(statement.count)::bigint" }
                    if let offset = request.descriptor.fetchOffset, offset > 0 { statement.append(Int64(offset)); page += " OFFSET $\(statement.count)::bigint" }
                }
                let orderText = complete ? order ?? "_seq ASC" : "_seq ASC"
                let result = try sql.queryPrepared(
                    "SELECT \(checks(generationParameter)), \(selectList) FROM \(tableName) WHERE \(whereText) ORDER BY \(orderText)\(page)", statement)
                var snapshots: [DefaultSnapshot] = []
                snapshots.reserveCapacity(result.count)
                var current = false, inexact = false
                for row in result {
                    // The checks are uncorrelated subqueries: every row has the same values.
                    if snapshots.isEmpty { (current, inexact) = try Self.checks(row) }
                    snapshots.append(try table.snapshot(from: row, at: 2))
                }
                var alone = StatementBinds()
                alone.append(generation)
                if snapshots.isEmpty, let row = try sql.queryPrepared("SELECT \(checks("$1::bigint"))", alone).first {
                    (current, inexact) = try Self.checks(row)
                }
                if !current { generation = try refreshGeneration(sql); continue }
                if inexact { break }
                if complete { return Selection(snapshots: snapshots, count: snapshots.count) }
                return countOnly ? Selection(count: try QueryEvaluator.count(request, over: snapshots))
                    : Selection(snapshots: try QueryEvaluator.fetch(request, over: snapshots))
            }
            // Rows whose typed columns are not exact (or a store migrated twice meanwhile):
            // every row of the entity, in memory.
            generation = try refreshGeneration(sql)
            var all: [DefaultSnapshot] = []
            for row in try sql.query("SELECT \(selectList) FROM \(tableName) ORDER BY _seq") {
                all.append(try table.snapshot(from: row, at: 0))
            }
            return countOnly ? Selection(count: try QueryEvaluator.count(request, over: all))
                : Selection(snapshots: try QueryEvaluator.fetch(request, over: all))
        }
    }
}
#endif
