import Foundation
import GRDB
import LogStore
import StoreProtocol

/// LogStore beside a GRDB table with an index on the timestamp (WAL, synchronous=FULL).
func benchmarkLogStore(_ scale: Scale, in directory: String) throws -> [Result] {
    var results: [Result] = []
    let area = "LogStore"
    func openLog(_ name: String) throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: LogStoreConfiguration(
            directory: URL(filePath: directory + "/" + name), timestamps: [LogTimestamp(\Trip.startDate)]))
    }

    progress("LogStore: 1-record appends")
    let single = try openLog("single")
    let singlePool = try SQLitePeer.open(directory + "/single.sqlite", indexStartDate: true)
    var next = 0
    let appends = scale.saveRuns
    let ours1 = try median(runs: appends) {
        let context = ModelContext(single)
        context.insert(Trip(TripRecord.make(next)))
        try context.save()
        next += 1
    }
    let grdb1 = try median(runs: appends) {
        let record = TripRecord.make(next)
        try singlePool.write { db in try record.insert(db) }
        next += 1
    }
    results.append(Result(area: area, name: "durable appends, 1 record per save", unit: .rate, ours: 1 / ours1,
                          referenceName: "GRDB", reference: 1 / grdb1, target: .ratio(1.0)))

    // Filling the large log 1,000 records per save gives the batched figure: the median save.
    let total = scale.logRecords
    progress("LogStore: \(total.grouped) records, 1,000 per save")
    let records = (0..<total).map(TripRecord.make)
    let log = try openLog("large")
    var saves: [Double] = []
    for start in stride(from: 0, to: total, by: 1_000) {
        let context = ModelContext(log)
        for record in records[start..<start + 1_000] { context.insert(Trip(record)) }
        saves.append(try seconds { try context.save() })
    }
    let pool = try SQLitePeer.open(directory + "/large.sqlite", indexStartDate: true)
    var grdbSaves: [Double] = []
    for start in stride(from: 0, to: total, by: 1_000) {
        grdbSaves.append(try seconds { try SQLitePeer.insert(records[start..<start + 1_000], perTransaction: 1_000, into: pool) })
    }
    results.append(Result(area: area, name: "durable appends, 1,000 records per save", unit: .rate,
                          ours: 1_000 / middle(saves), referenceName: "GRDB", reference: 1_000 / middle(grdbSaves),
                          target: .ratio(10)))

    progress("LogStore: ranges and scans")
    let low = TripRecord.epoch.addingTimeInterval(Double(total / 2)), high = low.addingTimeInterval(999)
    let range = try median(runs: scale.runs) {
        let found = try ModelContext(log).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate >= low && $0.startDate <= high }))
        precondition(found.count == 1_000, "the range holds 1,000 trips, not \(found.count)")
    }
    let grdbRange = try median(runs: scale.runs) {
        let found = try pool.read { try TripRecord.filter(Column("startDate") >= low && Column("startDate") <= high).fetchAll($0) }
        precondition(found.count == 1_000, "the range holds 1,000 trips, not \(found.count)")
    }
    results.append(Result(area: area, name: "1,000-row time range of \(total.grouped)", unit: .time, ours: range,
                          referenceName: "GRDB, indexed", reference: grdbRange, target: .ratio(1.0)))
    let scan = try median(runs: scale.slowRuns) { _ = try ModelContext(log).fetch(FetchDescriptor<Trip>()) }
    let grdbScan = try median(runs: scale.slowRuns) { _ = try pool.read { try TripRecord.fetchAll($0) } }
    results.append(Result(area: area, name: "full scan of \(total.grouped)", unit: .time, ours: scan,
                          referenceName: "GRDB", reference: grdbScan, target: .ratio(1.0)))
    return results
}
