import Foundation
import GRDB
import JSONStore
import StoreProtocol

/// Opening a JSON store written with ``TripV1`` through a container of ``TripV2``: a lightweight
/// migration that adds `stars` (not optional, with a default) and renames `destination` to
/// `place`. Beside opening the same store with ``TripV1`` again (no migration: the open alone),
/// and beside SQLite (GRDB, WAL, synchronous=FULL) opening a file database with a table of as
/// many rows and making the same two changes in one transaction (`ALTER TABLE … ADD COLUMN`,
/// `ALTER TABLE … RENAME COLUMN`).
///
/// Every timed run starts from a fresh copy of files written once; the copy (and a `sync`, so
/// that its writes do not slow the run's own fsyncs) is untimed. After every run, untimed, the
/// outcome is checked: the count, and every row's renamed, added and kept values.
func benchmarkMigration(_ scale: Scale, in directory: String) throws -> [Result] {
    let size = scale.migrationRecords
    let runs = scale.slowRuns + 2
    progress("Migration: a JSON store and a GRDB table of \(size.grouped) trips")
    let records = (0..<size).map(TripRecord.make)
    let written = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })

    let prepared = directory + "/migration-prepared", run = directory + "/migration-run"
    try FileManager.default.createDirectory(atPath: prepared, withIntermediateDirectories: true)
    let storeFiles = ["trips.json", "trips.json.journal"], databaseFile = "trips.sqlite"
    // The V1 store, compacted: its base file holds every row, its journal nothing.
    do {
        let container = try ModelContainer(for: Schema([TripV1.self]), configurations: [
            JSONStoreConfiguration(url: URL(filePath: prepared + "/" + storeFiles[0]))])
        let context = ModelContext(container)
        for record in records { context.insert(TripV1(record)) }
        try context.save()
        try (container.stores[0] as? JSONStore)?.compact()
    }
    // The same rows in GRDB's `trip` table, checkpointed into the database file, so that copying
    // that one file copies the table.
    do {
        let pool = try SQLitePeer.open(prepared + "/" + databaseFile)
        try SQLitePeer.insert(records[...], perTransaction: size, into: pool)
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try pool.close()
    }

    /// `files` copied from the prepared directory into an empty run directory, and on disk.
    func freshCopy(of files: [String]) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: run) { try manager.removeItem(atPath: run) }
        try manager.createDirectory(atPath: run, withIntermediateDirectories: true)
        for file in files where manager.fileExists(atPath: prepared + "/" + file) {
            try manager.copyItem(atPath: prepared + "/" + file, toPath: run + "/" + file)
        }
        sync()
    }
    let storeURL = URL(filePath: run + "/" + storeFiles[0])

    /// The store opened by `container` holds the `size` trips written, as `Model`s whose values
    /// `matches` the record each was written from. (One fetch of all: fetching the trips one by
    /// one by id would scan the store each time, `#Predicate { $0.id == id }` being built here on
    /// a generic model.)
    func check<Model: PersistentModel>(_ container: ModelContainer, holding _: Model.Type, _ who: String,
                                       _ matches: (Model, TripRecord) -> Bool) throws where Model.ID == UUID {
        let context = ModelContext(container)
        let count = try context.fetchCount(FetchDescriptor<Model>())
        let models = try context.fetch(FetchDescriptor<Model>())
        guard count == size, models.count == size, Set(models.map(\.id)).count == size else {
            throw BenchCheckFailed("\(who): the store counts \(count) trips and fetches \(models.count), not \(size) distinct ones")
        }
        for model in models {
            guard let record = written[model.id] else { throw BenchCheckFailed("\(who): trip \(model.id) was never written") }
            guard matches(model, record) else {
                throw BenchCheckFailed("\(who): trip \(model.id) reads other values than those written as \(record)")
            }
        }
    }

    progress("Migration: JSONStore, \(runs) runs each")
    let migrating = try median(runs: runs, setUp: { try freshCopy(of: storeFiles) }) {
        try ModelContainer(for: Schema([TripV2.self]), configurations: [JSONStoreConfiguration(url: storeURL)])
    } check: { container in
        guard let store = container.stores.first, store.recordedSchema?.holds(store.schema) == true else {
            throw BenchCheckFailed("migrating: the store does not record the V2 schema after opening")
        }
        try check(container, holding: TripV2.self, "migrating") { trip, record in
            trip.place == record.destination && trip.stars == 0 && trip.name == record.name && trip.visits == record.visits
        }
    }
    let unmigrated = try median(runs: runs, setUp: { try freshCopy(of: storeFiles) }) {
        try ModelContainer(for: Schema([TripV1.self]), configurations: [JSONStoreConfiguration(url: storeURL)])
    } check: { container in
        try check(container, holding: TripV1.self, "without migration") { trip, record in
            trip.destination == record.destination && trip.name == record.name && trip.visits == record.visits
        }
    }

    progress("Migration: GRDB, \(runs) runs")
    let databasePath = run + "/" + databaseFile
    let grdb = try median(runs: runs, setUp: { try freshCopy(of: [databaseFile]) }) {
        let pool = try SQLitePeer.durablePool(databasePath)
        try pool.write { db in
            try db.execute(sql: """
                ALTER TABLE trip ADD COLUMN stars INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE trip RENAME COLUMN destination TO place
                """)
        }
        return pool
    } check: { pool in
        try pool.read { db in
            let columns = try db.columns(in: TripRecord.databaseTableName).map(\.name)
            guard columns.contains("place"), columns.contains("stars"), !columns.contains("destination") else {
                throw BenchCheckFailed("GRDB: the table has the columns \(columns) after the migration")
            }
            // `id` is the primary key: rows are distinct.
            var count = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, place, visits, stars FROM trip")
            while let row = try rows.next() {
                count += 1
                guard let id = row["id"] as UUID?, let record = written[id], row["place"] == record.destination, row["stars"] == 0,
                      row["name"] == record.name, row["visits"] == record.visits else {
                    throw BenchCheckFailed("GRDB: the row \(row) is not one written, migrated")
                }
            }
            guard count == size else { throw BenchCheckFailed("GRDB: the table holds \(count) rows, not \(size)") }
        }
    }

    let name = "open \(size.grouped) records migrating (+1 attribute with a default, 1 renamed)"
    return [
        Result(area: "JSONStore", name: name, unit: .time, ours: migrating,
               referenceName: "GRDB ALTER TABLE ×2", reference: grdb),
        Result(area: "JSONStore", name: name, unit: .time, ours: migrating,
               referenceName: "ours, open without migration", reference: unmigrated),
    ]
}
