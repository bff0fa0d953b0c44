import Foundation
import MemoryStore
import StoreProtocol

/// The per-model costs of a ``ModelContext`` over MemoryStore, counted by callgrind
/// (`bench --callgrind fetch-by-id|fetch-by-name|insert-save [count]`): the MemoryStore rows'
/// fetch by id and indexed equality fetch (each a fresh context, a `#Predicate` and a fetch of one
/// trip, as those rows time them); one model of a fetch of every trip (`fetch-all`: a store of
/// `count` trips, fetched once by a fresh context); and an insert of one trip with its share of
/// one save; the MemoryStore predicate fetch of 10% (`memory-predicate`: a store of `count`
/// trips, `visits >= 90` fetched once by a fresh context; instructions per stored row).
///
/// The fetches run over a store of 10,000 trips: their cost per fetch does not grow with the
/// store (hashed lookups), and the setup stays short under valgrind.
func runContextCallgrindOperation(_ operation: CallgrindOperation, _ count: Int) throws {
    let records = (0..<10_000).map(TripRecord.make)
    switch operation {
    case .fetchByID:
        let container = try filledContainer(records, Trip.init)
        blackHole(try callgrindRegionFetchByID(container, (0..<count).map { records[$0 % records.count].id }))
    case .fetchByName:
        let container = try filledContainer(records, IndexedTrip.init)
        blackHole(try callgrindRegionFetchByName(container, (0..<count).map { records[$0 % records.count].name }))
    case .fetchAll:
        blackHole(try callgrindRegionFetchAll(try filledContainer((0..<count).map(TripRecord.make), Trip.init)))
    case .memoryPredicate:
        // Held past the region: its last release there would count the store's teardown.
        let container = try filledContainer((0..<count).map(TripRecord.make), Trip.init)
        blackHole(try callgrindRegionMemoryPredicate(container))
        withExtendedLifetime(container) {}
    case .insertAndSave:
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        let trips = (0..<count).map { Trip(TripRecord.make($0)) }
        try callgrindRegionInsertAndSave(ModelContext(container), trips)
    default:
        throw BenchCheckFailed("\(operation.rawValue) is not a context operation")
    }
}

/// A memory store holding a model made from each record, saved.
func filledContainer<M: PersistentModel>(_ records: [TripRecord], _ make: (TripRecord) -> M) throws -> ModelContainer {
    let container = try ModelContainer(for: M.self, configurations: MemoryStoreConfiguration())
    let context = ModelContext(container)
    for record in records { context.insert(make(record)) }
    try context.save()
    return container
}

// The predicates are built in functions of their own, called from the regions (so counted, as
// the timed rows count them): a `#Predicate` written in a region would be a closure whose symbol
// carries the region's name, and entering it would toggle collection off.

@inline(never)
func tripPredicate(id: UUID) -> Predicate<Trip> { #Predicate { $0.id == id } }

@inline(never)
func indexedTripPredicate(name: String) -> Predicate<IndexedTrip> { #Predicate { $0.name == name } }

@inline(never)
func tripVisitsPredicate(atLeast visits: Int) -> Predicate<Trip> { #Predicate { $0.visits >= visits } }

@inline(never)
func callgrindRegionFetchByID(_ container: ModelContainer, _ ids: [UUID]) throws -> Int {
    var found = 0
    for id in ids { found &+= try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: tripPredicate(id: id))).count }
    return found
}

@inline(never)
func callgrindRegionFetchByName(_ container: ModelContainer, _ names: [String]) throws -> Int {
    var found = 0
    for name in names {
        found &+= try ModelContext(container).fetch(FetchDescriptor<IndexedTrip>(predicate: indexedTripPredicate(name: name))).count
    }
    return found
}

@inline(never)
func callgrindRegionFetchAll(_ container: ModelContainer) throws -> Int {
    try ModelContext(container).fetch(FetchDescriptor<Trip>()).count
}

@inline(never)
func callgrindRegionMemoryPredicate(_ container: ModelContainer) throws -> Int {
    try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: tripVisitsPredicate(atLeast: 90))).count
}

@inline(never)
func callgrindRegionInsertAndSave(_ context: ModelContext, _ trips: [Trip]) throws {
    for trip in trips { context.insert(trip) }
    try context.save()
}
