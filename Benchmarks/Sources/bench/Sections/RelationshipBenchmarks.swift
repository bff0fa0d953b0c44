import Foundation
import GRDB
import JSONStore
import MemoryStore
import StoreProtocol

/// A relationship read: fetch 1,000 trips with 10 bucket-list items each and touch every item
/// (sum the UTF-8 lengths of their titles), on JSONStore and MemoryStore beside GRDB with the
/// same two tables, a foreign key from item to trip and an index on it.
///
/// Ours: a fresh context's `fetch` of every `PlannedTrip`; the context loads the bucket lists
/// eagerly, in one batch fetch of the 10,000 items by key, and sets both sides to its own
/// instances. GRDB (Codable records, as in the other rows): the trips, then their items with
/// `tripId IN (…)` through the index, grouped by trip; and, for a second reference, the same
/// through its association, `including(all:)`.
func benchmarkRelationships(_ scale: Scale, in directory: String) throws -> [Result] {
    let tripCount = 1_000, itemsPerTrip = 10
    progress("Relationships: \(tripCount.grouped) trips with \(itemsPerTrip) bucket-list items each")
    let trips = (0..<tripCount).map(PlannedTripRecord.make)
    let items = trips.map { trip in (0..<itemsPerTrip).map { PlannedItemRecord.make($0, of: trip.id) } }
    let expected = items.joined().reduce(0) { $0 + $1.title.utf8.count }

    func fill(_ container: ModelContainer) throws { try fillPlannedTrips(container, trips, items) }
    /// The timed read of ours: every trip, then each trip's items.
    func touchEveryItem(in container: ModelContainer) throws -> Int {
        let (count, total) = try callgrindRegionRelationships(container)
        guard count == tripCount else { throw BenchCheckFailed("fetched \(count) trips, not \(tripCount)") }
        return total
    }
    /// The timed read must have read every item, every run.
    func check(_ total: Int, _ who: String) throws {
        guard total == expected else { throw BenchCheckFailed("\(who) touched \(total) title bytes, not \(expected)") }
    }

    let json = try ModelContainer(for: PlannedTrip.self, configurations: JSONStoreConfiguration(
        url: URL(filePath: directory + "/planned-trips.json")))
    try fill(json)
    try (json.stores[0] as? JSONStore)?.compact()
    let memory = try ModelContainer(for: PlannedTrip.self, configurations: MemoryStoreConfiguration())
    try fill(memory)

    let pool = try SQLitePeer.openPlannedTrips(directory + "/planned-trips.sqlite")
    try pool.write { db in
        for (trip, tripItems) in zip(trips, items) {
            try trip.insert(db)
            for item in tripItems { try item.insert(db) }
        }
    }
    let request = PlannedTripRecord.including(all: PlannedTripRecord.bucketList).asRequest(of: PlannedTripInfo.self)
    /// GRDB's item titles touched the same way, whichever way the trips and items were fetched.
    func touch(_ fetched: [(trip: PlannedTripRecord, items: [PlannedItemRecord])], _ who: String) throws {
        guard fetched.count == tripCount else { throw BenchCheckFailed("\(who) fetched \(fetched.count) trips, not \(tripCount)") }
        var total = 0
        for (_, tripItems) in fetched {
            for item in tripItems { total += item.title.utf8.count }
        }
        try check(total, who)
    }

    let oursJSON = try median(runs: scale.runs) { try check(try touchEveryItem(in: json), "JSONStore") }
    let oursMemory = try median(runs: scale.runs) { try check(try touchEveryItem(in: memory), "MemoryStore") }
    // The two queries by hand: the trips, then their items by `tripId IN (…)` through the index,
    // grouped by trip. Faster than `including(all:)` here (about half its time in trial runs),
    // so the stricter reference.
    let grdb = try median(runs: scale.runs) { try touch(try pool.read(plannedTripsInTwoQueries), "GRDB, two queries") }
    // GRDB's association: the same two queries, decoded into `PlannedTripInfo`.
    let grdbAssociation = try median(runs: scale.runs) {
        try touch(try pool.read { try request.fetchAll($0) }.map { ($0.trip, $0.bucketList) }, "GRDB including(all:)")
    }
    let name = "\(tripCount.grouped) trips × \(itemsPerTrip) related items: fetch, touch items"
    // The same read counted by callgrind, which the load of a shared machine does not move.
    var counted: [Result] = []
    if let valgrind = CallgrindRun.valgrindPath() {
        progress("Relationships: instructions per trip with its items, under callgrind")
        func instructions(_ operation: CallgrindOperation) throws -> Double {
            try CallgrindRun(valgrind: valgrind, operation: operation, count: tripCount).instructionsPerOperation()
        }
        counted.append(Result(area: "MemoryStore, callgrind", name: "1 trip × \(itemsPerTrip) related items of a fetch of \(tripCount.grouped): fetch, touch items",
                              unit: .instructions, ours: try instructions(.relationships), referenceName: "GRDB, two queries",
                              reference: try instructions(.relationshipsGRDB), target: .ratio(1)))
    }
    return counted + [
        Result(area: "JSONStore", name: name, unit: .time, ours: oursJSON, referenceName: "GRDB, two queries", reference: grdb,
               target: .ratio(1)),
        Result(area: "JSONStore", name: name, unit: .time, ours: oursJSON, referenceName: "GRDB including(all:)",
               reference: grdbAssociation),
        Result(area: "MemoryStore", name: name, unit: .time, ours: oursMemory, referenceName: "GRDB, two queries", reference: grdb,
               target: .ratio(1)),
    ]
}

/// A store of ours holding the trips, their items set from the trip's side.
func fillPlannedTrips(_ container: ModelContainer, _ trips: [PlannedTripRecord], _ items: [[PlannedItemRecord]]) throws {
    let context = ModelContext(container)
    for (trip, tripItems) in zip(trips, items) {
        let model = PlannedTrip(trip)
        model.bucketList = tripItems.map(PlannedItem.init)
        context.insert(model)   // inserts its items too
    }
    try context.save()
}

/// GRDB's two queries by hand: the trips, then their items by `tripId IN (…)` through the
/// index, grouped by trip.
func plannedTripsInTwoQueries(_ db: Database) throws -> [(trip: PlannedTripRecord, items: [PlannedItemRecord])] {
    let trips = try PlannedTripRecord.fetchAll(db)
    let byTrip = Dictionary(grouping: try PlannedItemRecord.filter(trips.map(\.id).contains(Column("tripId"))).fetchAll(db),
                            by: \.tripId)
    return trips.map { (trip: $0, items: byTrip[$0.id] ?? []) }
}

/// The per-trip cost of the relationship read, counted by callgrind
/// (`bench --callgrind relationships|relationships-grdb [trips]`): a fresh context's fetch of
/// `count` trips with 10 items each from a MemoryStore, touching every item (the timed row's
/// read), and GRDB's two queries over the same rows in SQLite, in the same process.
func runRelationshipCallgrindOperation(_ operation: CallgrindOperation, _ count: Int) throws {
    let trips = (0..<count).map(PlannedTripRecord.make)
    let items = trips.map { trip in (0..<10).map { PlannedItemRecord.make($0, of: trip.id) } }
    switch operation {
    case .relationships:
        let container = try ModelContainer(for: PlannedTrip.self, configurations: MemoryStoreConfiguration())
        try fillPlannedTrips(container, trips, items)
        let (fetched, total) = try callgrindRegionRelationships(container)
        guard fetched == count, total > 0 else { throw BenchCheckFailed("relationships: fetched \(fetched) trips") }
    case .relationshipsGRDB:
        let directory = FileManager.default.temporaryDirectory.appending(path: "bench-callgrind-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pool = try SQLitePeer.openPlannedTrips(directory + "/planned-trips.sqlite")
        try pool.write { db in
            for (trip, tripItems) in zip(trips, items) {
                try trip.insert(db)
                for item in tripItems { try item.insert(db) }
            }
        }
        let (fetched, total) = try callgrindRegionRelationshipsGRDB(pool)
        guard fetched == count, total > 0 else { throw BenchCheckFailed("relationships-grdb: fetched \(fetched) trips") }
    default:
        throw BenchCheckFailed("\(operation.rawValue) is not a relationship operation")
    }
}

/// Every trip in a fresh context, then each trip's items: the trips fetched and the item title
/// bytes touched.
@inline(never)
func callgrindRegionRelationships(_ container: ModelContainer) throws -> (trips: Int, titleBytes: Int) {
    let fetched = try ModelContext(container).fetch(FetchDescriptor<PlannedTrip>())
    var total = 0
    for trip in fetched {
        for item in trip.bucketList { total &+= item.title.utf8.count }
    }
    return (fetched.count, total)
}

/// GRDB's two queries, the same items touched.
@inline(never)
func callgrindRegionRelationshipsGRDB(_ pool: DatabasePool) throws -> (trips: Int, titleBytes: Int) {
    let fetched = try pool.read(plannedTripsInTwoQueries)
    var total = 0
    for (_, tripItems) in fetched {
        for item in tripItems { total &+= item.title.utf8.count }
    }
    return (fetched.count, total)
}

/// A benchmark read less than it should have: its figure would mean nothing.
struct BenchCheckFailed: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
