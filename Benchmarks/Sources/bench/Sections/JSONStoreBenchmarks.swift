import Foundation
import GRDB
import JSONStore
import StoreProtocol

/// JSONStore beside GRDB (WAL, synchronous=FULL) and beside rewriting one JSON file per save.
func benchmarkJSONStore(_ scale: Scale, in directory: String) throws -> [Result] {
    var results: [Result] = []
    var ourSaves: [Int: Double] = [:]
    var largest: (container: ModelContainer, pool: DatabasePool, path: String, ids: [UUID])?
    let area = "JSONStore"

    for size in scale.jsonSizes {
        progress("JSONStore: a store of \(size.grouped) trips")
        let records = (0..<size).map(TripRecord.make)
        let path = directory + "/trips-\(size).json"
        let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(url: URL(filePath: path)))
        let seed = ModelContext(container)
        for record in records { seed.insert(Trip(record)) }
        try seed.save()
        // Start from a compacted store: the journal then holds only the timed saves.
        try (container.stores[0] as? JSONStore)?.compact()

        let pool = try SQLitePeer.open(directory + "/trips-\(size).sqlite")
        try SQLitePeer.insert(records[...], perTransaction: size, into: pool)
        var file = RewrittenJSONFile(path: directory + "/trips-\(size)-rewritten.json")
        try file.save(inserting: records)

        var next = size
        func nextRecord() -> TripRecord {
            next += 1
            return TripRecord.make(next)
        }
        let ours = try median(runs: scale.saveRuns) {
            let context = ModelContext(container)
            context.insert(Trip(nextRecord()))
            try context.save()
        }
        let grdb = try median(runs: scale.saveRuns) {
            let record = nextRecord()
            try pool.write { db in try record.insert(db) }
        }
        let rewrite = try median(runs: scale.saveRuns, budget: 3) { try file.save(inserting: [nextRecord()]) }
        ourSaves[size] = ours
        results.append(Result(area: area, name: "1-record durable save, \(size.grouped) records", unit: .time, ours: ours,
                              referenceName: "GRDB", reference: grdb, target: size == 100_000 ? .ratio(1.3) : nil))
        results.append(Result(area: area, name: "1-record durable save, \(size.grouped) records", unit: .time, ours: ours,
                              referenceName: "rewrite file", reference: rewrite))
        largest = (container, pool, path, records.map(\.id))
    }
    if let small = scale.jsonSizes.first, let large = scale.jsonSizes.last, let smallTime = ourSaves[small], let largeTime = ourSaves[large] {
        results.append(Result(area: area, name: "1-record save at \(large.grouped) vs at \(small.grouped) records", unit: .time,
                              ours: largeTime, referenceName: "ours at \(small.grouped)", reference: smallTime, target: .ratio(1.2)))
    }
    guard let (container, pool, path, ids) = largest else { return results }
    let size = ids.count

    progress("JSONStore: 1,000-record saves")
    var next = 10_000_000
    let batch = { (count: Int) -> [TripRecord] in
        defer { next += count }
        return (next..<next + count).map(TripRecord.make)
    }
    let ours1000 = try median(runs: scale.runs) {
        let context = ModelContext(container)
        for record in batch(1_000) { context.insert(Trip(record)) }
        try context.save()
    }
    let grdb1000 = try median(runs: scale.runs) { try SQLitePeer.insert(batch(1_000)[...], perTransaction: 1_000, into: pool) }
    results.append(Result(area: area, name: "1,000-record durable save", unit: .time, ours: ours1000,
                          referenceName: "GRDB", reference: grdb1000))

    progress("JSONStore: open \(size.grouped) records")
    try (container.stores[0] as? JSONStore)?.compact()
    let open = try median(runs: scale.slowRuns + 2) {
        let reopened = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(url: URL(filePath: path)))
        _ = try ModelContext(reopened).fetchCount(FetchDescriptor<Trip>())
    }
    let grdbOpen = try median(runs: scale.slowRuns + 2) {
        let reopened = try DatabasePool(path: pool.path)
        _ = try reopened.read { try TripRecord.fetchAll($0) }
    }
    results.append(Result(area: area, name: "open \(size.grouped) records", unit: .time, ours: open,
                          referenceName: "GRDB fetchAll", reference: grdbOpen, target: .ratio(0.7)))

    progress("JSONStore: fetches")
    let lookups = ids.shuffled().prefix(1_000)
    let byID = try medianPerOperation(runs: scale.runs, operations: lookups.count) { index in
        let id = lookups[lookups.startIndex + index]
        _ = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.id == id }))
    }
    let grdbByID = try medianPerOperation(runs: scale.runs, operations: lookups.count) { index in
        let id = lookups[lookups.startIndex + index]
        _ = try pool.read { try TripRecord.fetchOne($0, key: id) }
    }
    results.append(Result(area: area, name: "fetch by id, \(size.grouped) records", unit: .time, ours: byID,
                          referenceName: "GRDB", reference: grdbByID))
    // Trips with 90 or more visits: a tenth of them.
    let ours = try median(runs: scale.runs) {
        _ = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.visits >= 90 }))
    }
    let grdb = try median(runs: scale.runs) {
        _ = try pool.read { try TripRecord.filter(Column("visits") >= 90).fetchAll($0) }
    }
    results.append(Result(area: area, name: "predicate fetch (10% of \(size.grouped))", unit: .time, ours: ours,
                          referenceName: "GRDB", reference: grdb, target: .ratio(0.7)))

    let oursCount = try median(runs: scale.runs) {
        _ = try ModelContext(container).fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.visits >= 90 }))
    }
    let grdbCount = try median(runs: scale.runs) {
        _ = try pool.read { try TripRecord.filter(Column("visits") >= 90).fetchCount($0) }
    }
    results.append(Result(area: area, name: "fetchCount with a predicate, \(size.grouped)", unit: .time, ours: oursCount,
                          referenceName: "GRDB", reference: grdbCount, target: .ratio(0.3)))

    // The same trips with the name indexed, in our store and in GRDB's table.
    progress("JSONStore: \(size.grouped) trips with an indexed name")
    let records = try pool.read { try TripRecord.fetchAll($0) }
    let indexed = try ModelContainer(for: IndexedTrip.self, configurations: JSONStoreConfiguration(
        url: URL(filePath: directory + "/indexed-trips-\(size).json")))
    do {
        let context = ModelContext(indexed)
        for record in records { context.insert(IndexedTrip(record)) }
        try context.save()
        try (indexed.stores[0] as? JSONStore)?.compact()
    }
    try pool.write { db in try db.create(index: "trip_name", on: TripRecord.databaseTableName, columns: ["name"], ifNotExists: true) }
    let names = records.shuffled().prefix(1_000).map(\.name)
    let byName = try medianPerOperation(runs: scale.runs, operations: names.count) { index in
        let name = names[index]
        _ = try ModelContext(indexed).fetch(FetchDescriptor<IndexedTrip>(predicate: #Predicate { $0.name == name }))
    }
    let grdbByName = try medianPerOperation(runs: scale.runs, operations: names.count) { index in
        let name = names[index]
        _ = try pool.read { try TripRecord.filter(Column("name") == name).fetchAll($0) }
    }
    results.append(Result(area: area, name: "indexed equality fetch, 1 of \(size.grouped)", unit: .time, ours: byName,
                          referenceName: "GRDB, indexed", reference: grdbByName, target: .ratio(1.0)))

    // A 1,000-trip range and the 10 latest by the indexed start date, beside GRDB with an index.
    try pool.write { db in
        try db.create(index: "trip_startDate", on: TripRecord.databaseTableName, columns: ["startDate"], ifNotExists: true)
    }
    let from = TripRecord.epoch.addingTimeInterval(Double(size / 2)), to = from.addingTimeInterval(1_000)
    let range = try median(runs: scale.runs) {
        let found = try ModelContext(indexed).fetch(FetchDescriptor<IndexedTrip>(predicate: #Predicate { $0.startDate >= from && $0.startDate < to }))
        precondition(found.count == 1_000, "the range holds 1,000 trips, not \(found.count)")
    }
    let grdbRange = try median(runs: scale.runs) {
        _ = try pool.read { try TripRecord.filter(Column("startDate") >= from && Column("startDate") < to).fetchAll($0) }
    }
    results.append(Result(area: area, name: "indexed range fetch, 1,000 of \(size.grouped)", unit: .time, ours: range,
                          referenceName: "GRDB, indexed", reference: grdbRange, target: .ratio(0.8)))
    var latest = FetchDescriptor<IndexedTrip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
    latest.fetchLimit = 10
    let top = try median(runs: scale.runs) { _ = try ModelContext(indexed).fetch(latest) }
    let grdbTop = try median(runs: scale.runs) {
        _ = try pool.read { try TripRecord.order(Column("startDate").desc).limit(10).fetchAll($0) }
    }
    results.append(Result(area: area, name: "top 10 by an indexed attribute of \(size.grouped)", unit: .time, ours: top,
                          referenceName: "GRDB, indexed", reference: grdbTop, target: .ratio(1.0)))
    return results
}
