import Foundation
import GRDB

/// The same work in SQLite through GRDB: one file in WAL mode, saves durable (synchronous=FULL).
final class SQLitePeer {
    let queue: DatabaseQueue
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appending(path: "pg-bench-\(UUID().uuidString).sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE items (seq INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, name TEXT NOT NULL, category INTEGER NOT NULL, value INTEGER NOT NULL)")
            try db.execute(sql: "CREATE INDEX items_category ON items (category)")
            try db.execute(sql: "CREATE TABLE history (tx INTEGER PRIMARY KEY, ts REAL NOT NULL, changes TEXT NOT NULL)")
        }
    }

    func save(_ items: [BenchItem]) throws {
        try queue.write { db in
            var keys: [String] = []
            for item in items {
                try db.execute(sql: "INSERT INTO items (id, name, category, value) VALUES (?, ?, ?, ?)",
                               arguments: [item.id.uuidString, item.name, item.category, item.value])
                keys.append(item.id.uuidString)
            }
            try db.execute(sql: "INSERT INTO history (ts, changes) VALUES (?, ?)",
                           arguments: [Date().timeIntervalSince1970, String(decoding: try JSONEncoder().encode(keys), as: UTF8.self)])
        }
    }

    func fetch(_ condition: String, _ value: Int) throws -> [(String, String, Int, Int)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, category, value FROM items WHERE \(condition) ORDER BY seq", arguments: [value])
                .map { ($0["id"], $0["name"], $0["category"], $0["value"]) }
        }
    }

    func history(after number: Int64) throws -> [(Int64, Double, [String])] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT tx, ts, changes FROM history WHERE tx > ? ORDER BY tx", arguments: [number]).map {
                let changes: String = $0["changes"]
                return ($0["tx"], $0["ts"], try JSONDecoder().decode([String].self, from: Data(changes.utf8)))
            }
        }
    }

    func lastTransaction() throws -> Int64 {
        try queue.read { db in try Int64.fetchOne(db, sql: "SELECT coalesce(max(tx), 0) FROM history") ?? 0 }
    }

    func close() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
