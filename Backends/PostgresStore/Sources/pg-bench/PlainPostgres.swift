import Foundation
import Logging
import NIOPosix
import PostgresNIO
import PostgresStore

/// The same work as the store, written by hand with postgres-nio: a table with typed columns and
/// a history table, saves in one transaction under the same advisory lock (so that history
/// numbers follow commit order, as the store's do), bound parameters.
final class PlainPostgres {
    let connection: PostgresConnection
    let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
    let schema: String

    init(_ configuration: PostgresStoreConfiguration) throws {
        connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.user,
                                 password: configuration.password, database: configuration.database, tls: .disable),
            id: 7, logger: logger).wait()
        schema = "\"" + configuration.namespace + "_plain\""
        try run("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        try run("CREATE SCHEMA \(schema)")
        try run("CREATE TABLE \(schema).items (id uuid PRIMARY KEY, seq bigserial, name text NOT NULL, category bigint NOT NULL, value bigint NOT NULL)")
        try run("CREATE INDEX ON \(schema).items (category)")
        try run("CREATE TABLE \(schema).history (tx bigint PRIMARY KEY, ts double precision NOT NULL, changes text NOT NULL)")
    }

    @discardableResult
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> PostgresQueryResult {
        try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
    }

    /// Inserts the items and one history row, in one transaction.
    func save(_ items: [BenchItem]) throws {
        try run("BEGIN")
        var lock = PostgresBindings()
        lock.append("bench:" + schema)
        try run("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", lock)
        // Multi-row INSERTs of up to 500 rows, as the store writes them.
        var keys: [String] = []
        var start = 0
        while start < items.count {
            let chunk = items[start..<min(items.count, start + 500)]
            start += chunk.count
            var binds = PostgresBindings()
            var tuples: [String] = []
            for item in chunk {
                let first = binds.count
                binds.append(item.id)
                binds.append(item.name)
                binds.append(Int64(item.category))
                binds.append(Int64(item.value))
                tuples.append("($\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4))")
                keys.append(item.id.uuidString)
            }
            try run("INSERT INTO \(schema).items (id, name, category, value) VALUES \(tuples.joined(separator: ", "))", binds)
        }
        var history = PostgresBindings()
        history.append(Date().timeIntervalSince1970)
        history.append(String(decoding: try JSONEncoder().encode(keys), as: UTF8.self))
        try run("INSERT INTO \(schema).history SELECT coalesce(max(tx), 0) + 1, $1, $2 FROM \(schema).history", history)
        try run("COMMIT")
    }

    /// The rows `WHERE condition`, decoded.
    func fetch(_ condition: String, _ value: Int64) throws -> [(UUID, String, Int64, Int64)] {
        var binds = PostgresBindings()
        binds.append(value)
        return try run("SELECT id, name, category, value FROM \(schema).items WHERE \(condition) ORDER BY seq", binds)
            .map { try $0.decode((UUID, String, Int64, Int64).self) }
    }

    /// The history rows after `number`.
    func history(after number: Int64) throws -> [(Int64, Double, [String])] {
        var binds = PostgresBindings()
        binds.append(number)
        return try run("SELECT tx, ts, changes FROM \(schema).history WHERE tx > $1 ORDER BY tx", binds).map {
            let (tx, ts, changes) = try $0.decode((Int64, Double, String).self)
            return (tx, ts, try JSONDecoder().decode([String].self, from: Data(changes.utf8)))
        }
    }

    func lastTransaction() throws -> Int64 {
        try run("SELECT coalesce(max(tx), 0) FROM \(schema).history").first!.decode(Int64.self)
    }

    func close() throws {
        try run("DROP SCHEMA \(schema) CASCADE")
        try connection.close().wait()
    }
}
