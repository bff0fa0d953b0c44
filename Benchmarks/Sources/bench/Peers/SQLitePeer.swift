import Foundation
import GRDB

/// The SQLite peer, through GRDB: a `DatabasePool` (WAL) with `synchronous=FULL`, so that every
/// committed transaction is on disk, as every acknowledged save of ours is.
enum SQLitePeer {
    /// A new database at `path` with the `trip` table; `indexStartDate` adds an index on the time
    /// column, as a time-series table would have.
    static func open(_ path: String, indexStartDate: Bool = false) throws -> DatabasePool {
        let pool = try durablePool(path)
        try pool.write { db in
            try db.create(table: TripRecord.databaseTableName, ifNotExists: true) { table in
                table.primaryKey("id", .blob)
                table.column("name", .text).notNull()
                table.column("destination", .text).notNull()
                table.column("startDate", .datetime).notNull()
                table.column("endDate", .datetime).notNull()
                table.column("visits", .integer).notNull()
            }
            if indexStartDate {
                try db.create(index: "trip_startDate", on: TripRecord.databaseTableName, columns: ["startDate"], ifNotExists: true)
            }
        }
        return pool
    }

    /// A pool at `path` whose commits are synced (`synchronous=FULL`).
    static func durablePool(_ path: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        // After opening: a pool sets synchronous=NORMAL on its writer when it enables WAL, which
        // would not sync the WAL at each commit.
        let synchronous = try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        guard synchronous == 2 else { throw DatabaseError(message: "synchronous is \(synchronous ?? -1), not FULL (2)") }
        return pool
    }

    /// A new database at `path` with the planned trips' schema: `plannedTrip`, and `plannedItem`
    /// whose `tripId` references it (cascading deletes, as the model's delete rule does) and is
    /// indexed, so that fetching a trip's items is an index lookup.
    static func openPlannedTrips(_ path: String) throws -> DatabasePool {
        let pool = try durablePool(path)
        try pool.write { db in
            try db.create(table: PlannedTripRecord.databaseTableName, ifNotExists: true) { table in
                table.primaryKey("id", .blob)
                table.column("name", .text).notNull()
                table.column("destination", .text).notNull()
                table.column("startDate", .datetime).notNull()
                table.column("endDate", .datetime).notNull()
            }
            try db.create(table: PlannedItemRecord.databaseTableName, ifNotExists: true) { table in
                table.primaryKey("id", .blob)
                table.column("tripId", .blob).notNull().indexed()
                    .references(PlannedTripRecord.databaseTableName, onDelete: .cascade)
                table.column("title", .text).notNull()
                table.column("details", .text).notNull()
                table.column("hasReservation", .boolean).notNull()
                table.column("isInPlan", .boolean).notNull()
            }
        }
        return pool
    }

    /// Inserts `records`, `perTransaction` in each durable transaction.
    static func insert(_ records: ArraySlice<TripRecord>, perTransaction: Int, into pool: DatabasePool) throws {
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(records.endIndex, start + perTransaction)
            try pool.write { db in
                for record in records[start..<end] { try record.insert(db) }
            }
            start = end
        }
    }
}
