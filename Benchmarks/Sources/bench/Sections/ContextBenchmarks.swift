import Dispatch
import Foundation
import JSONStore
import MemoryStore
import StoreProtocol

/// What a save costs a long-lived ``ModelContext`` (issue 16), beside a fresh context doing the
/// same work in the same run, on a JSON store and on a memory store of as many trips:
///
/// - a fresh context fetches one trip by id (`#Predicate { $0.id == id }` on `Trip`), changes
///   its name and saves: the reference;
/// - a long-lived context that fetched every trip and let them go (nothing holds them) does the
///   same: its first save compares every trip once more and forgets them, a later save is
///   timed apart (the steady state);
/// - a long-lived context that still holds every trip (an array kept alive) changes one and
///   saves: an `@Model` trip marks the attribute set, so the save looks at the changed trip only.
///
/// And, apart, what fetching every trip into a new context costs an `@Model` trip beside
/// ``CodableTrip``, the same trip written by hand as before `@Model` (coded through `Codable`).
///
/// A fresh context's run alternates with each long-lived run, so that both see the same machine
/// (where this was written, an fsync took 0.3 ms in one phase of a run and 4 ms in the next);
/// each row's reference is the fresh runs taken beside it, the first row all of them. Each run
/// times the whole unit of work (fetch, change, save) and, apart, `save()` alone. Untimed, after
/// every run: a fresh context reads the new name; after the first save of a context that let
/// its trips go (and after its last), no trip but the one it just changed is still registered;
/// after the runs of a context that holds its trips, each is still the registered instance; at
/// the end, every trip reads its last name and its other values as written, on the JSON store
/// from a container opened anew on its files.
func benchmarkContext(_ scale: Scale, in directory: String) throws -> [Result] {
    let size = scale.contextRecords
    let records = (0..<size).map(TripRecord.make)
    var results: [Result] = []

    progress("Context: a JSON store of \(size.grouped) trips")
    let url = URL(filePath: directory + "/context-trips.json")
    let json = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(url: url))
    try seed(json, with: records, as: Trip.self)
    // Start from a compacted store, its writes on disk: the journal then holds only the timed saves.
    try (json.stores[0] as? JSONStore)?.compact()
    sync()
    let jsonBench = ContextBench<Trip>(area: "ModelContext, JSONStore", save: "durable save", container: json, records: records, scale: scale)
    results += try jsonBench.run()
    try jsonBench.checkEveryTrip(
        in: ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(url: url)), "a container opened on the files")

    progress("Context: a memory store of \(size.grouped) trips")
    let memory = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
    try seed(memory, with: records, as: Trip.self)
    let memoryBench = ContextBench<Trip>(area: "ModelContext, MemoryStore", save: "save", container: memory, records: records, scale: scale)
    results += try memoryBench.run()
    try memoryBench.checkEveryTrip(in: memory, "a fresh context")

    let handWritten = try ModelContainer(for: CodableTrip.self, configurations: MemoryStoreConfiguration())
    try seed(handWritten, with: records, as: CodableTrip.self)
    results.append(try fetchEveryTripCost(model: memory, handWritten: handWritten, records: records, scale: scale))
    return results
}

private func seed<Model: ContextTrip>(_ container: ModelContainer, with records: [TripRecord], as type: Model.Type) throws {
    let context = ModelContext(container)
    for record in records { context.insert(Model(record)) }
    try context.save()
}

/// What fetching every trip into a new context costs an `@Model` trip beside the hand-written
/// ``CodableTrip`` (decoded through `Codable`: the fetch before `@Model`), on memory stores of the
/// same trips: runs alternate.
private func fetchEveryTripCost(model: ModelContainer, handWritten: ModelContainer, records: [TripRecord], scale: Scale) throws -> Result {
    progress("Context: fetching every trip, @Model and hand-written Codable")
    var modelTimes: [Double] = [], handWrittenTimes: [Double] = []
    for _ in 0..<(scale.slowRuns + 2) {
        for (container, isModel) in [(handWritten, false), (model, true)] {
            let context = ModelContext(container)
            let start = DispatchTime.now().uptimeNanoseconds
            let count = isModel ? try context.fetch(FetchDescriptor<Trip>()).count : try context.fetch(FetchDescriptor<CodableTrip>()).count
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            guard count == records.count else { throw BenchCheckFailed("fetched \(count) trips, not \(records.count)") }
            if isModel { modelTimes.append(seconds) } else { handWrittenTimes.append(seconds) }
        }
    }
    return Result(area: "ModelContext, MemoryStore", name: "fetch \(records.count.grouped) @Model trips into a new context",
                  unit: .time, ours: middle(modelTimes), referenceName: "the same, hand-written Codable trips",
                  reference: middle(handWrittenTimes), target: .ratio(1.2))
}

/// A trip model the context cases run on: `Trip` (`@Model`), or `CodableTrip` (hand-written) for the fetch.
protocol ContextTrip: PersistentModel where ID == UUID {
    init(_ record: TripRecord)
    var name: String { get set }
    var destination: String { get }
    var startDate: Date { get }
    var endDate: Date { get }
    var visits: Int { get }
    /// `#Predicate { $0.id == id }` written on the concrete type: on a generic one its key path
    /// goes through the protocol, and stores cannot look the row up by key.
    static func fetch(id: UUID, in context: ModelContext) throws -> [Self]
}

extension Trip: ContextTrip {
    static func fetch(id: UUID, in context: ModelContext) throws -> [Trip] {
        try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.id == id }))
    }
}

extension CodableTrip: ContextTrip {
    static func fetch(id: UUID, in context: ModelContext) throws -> [CodableTrip] {
        try context.fetch(FetchDescriptor<CodableTrip>(predicate: #Predicate { $0.id == id }))
    }
}

/// Fetches every trip into `context` and lets them go: when this returns, nothing but the context
/// holds them. Not inlined, so that no local of the caller keeps the array alive.
@inline(never)
private func fetchEveryTripAndLetGo<Model: ContextTrip>(_ type: Model.Type, into context: ModelContext) throws -> Int {
    try context.fetch(FetchDescriptor<Model>()).count
}

/// One timed unit of work: from its start to the end of its save, and the save alone.
private struct UnitTime {
    var whole: Double
    var save: Double

    /// Times `change`, then `save`; their outcomes are checked by the caller, untimed.
    static func measure(_ change: () throws -> Void, save: () throws -> Void) rethrows -> UnitTime {
        let start = DispatchTime.now().uptimeNanoseconds
        try change()
        let saving = DispatchTime.now().uptimeNanoseconds
        try save()
        let end = DispatchTime.now().uptimeNanoseconds
        return UnitTime(whole: Double(end - start) / 1e9, save: Double(end - saving) / 1e9)
    }
}

/// Timed runs of a long-lived context, and the fresh-context runs taken beside them.
private struct Beside {
    var ours: [UnitTime] = []
    var fresh: [UnitTime] = []

    static func + (lhs: Beside, rhs: Beside) -> Beside { Beside(ours: lhs.ours + rhs.ours, fresh: lhs.fresh + rhs.fresh) }
}

/// The three cases on one container of `records`.
private final class ContextBench<Model: ContextTrip> {
    let area: String
    /// What a save is called in the rows: "durable save" for a store that flushes.
    let saveName: String
    let container: ModelContainer
    let records: [TripRecord]
    let scale: Scale
    /// Trips to change, one per run, each once in the whole section.
    private var pool: ArraySlice<UUID>
    /// The last name written to each changed trip.
    private(set) var names: [UUID: String] = [:]
    private var stamp = 0

    init(area: String, save: String, container: ModelContainer, records: [TripRecord], scale: Scale) {
        self.area = area
        saveName = save
        self.container = container
        self.records = records
        self.scale = scale
        pool = records.map(\.id).shuffled()[...]
    }

    func run() throws -> [Result] {
        let size = records.count.grouped
        let firstRuns = scale.slowRuns + 2

        progress("Context (\(area)): \(firstRuns) contexts that fetch \(size) trips and let them go, then \(scale.saveRuns) saves")
        var first = Beside(), later = Beside()
        var longLived: ModelContext?
        for _ in 0..<firstRuns {
            first.fresh.append(try freshRun())
            let context = ModelContext(container)
            try checkLetGo(in: context)
            let (time, changed) = try run(in: context)
            try checkForgotten(by: context, except: changed)
            first.ours.append(time)
            longLived = context
        }
        guard let longLived else { throw BenchCheckFailed("\(area): no long-lived context") }
        var lastChanged: UUID?
        for _ in 0..<scale.saveRuns {
            later.fresh.append(try freshRun())
            let (time, changed) = try run(in: longLived)
            later.ours.append(time)
            lastChanged = changed
        }
        if let lastChanged { try checkForgotten(by: longLived, except: lastChanged) }

        progress("Context (\(area)): a context that holds \(size) trips, up to \(scale.saveRuns) saves")
        let holding = ModelContext(container)
        let held = try holding.fetch(FetchDescriptor<Model>())
        guard held.count == records.count else { throw BenchCheckFailed("\(area): fetched \(held.count) trips, not \(size)") }
        let index = Dictionary(uniqueKeysWithValues: held.indices.map { (held[$0].id, $0) })
        var holdingRuns = Beside(), spent = 0.0
        try withExtendedLifetime(held) {
            while holdingRuns.ours.count < scale.saveRuns, holdingRuns.ours.count < 5 || spent < 3 {
                holdingRuns.fresh.append(try freshRun())
                let time = try run(holding: held, index, in: holding)
                holdingRuns.ours.append(time)
                spent += time.whole
            }
            for trip in held where (holding.registeredModel(for: trip.persistentModelID) as Model?) !== trip {
                throw BenchCheckFailed("\(area): a held trip, \(trip.id), is no longer the registered instance")
            }
        }

        let unit = "fetch 1 of \(size) by id, change it, \(saveName)"
        let fresh = "fresh context", freshSave = "fresh context, save() alone"
        let all = first + later + holdingRuns
        func row(_ name: String, _ runs: Beside, _ part: KeyPath<UnitTime, Double>, reference: String, target: Result.Target? = nil) -> Result {
            Result(area: area, name: name, unit: .time, ours: middle(runs.ours.map { $0[keyPath: part] }),
                   referenceName: reference, reference: middle(runs.fresh.map { $0[keyPath: part] }), target: target)
        }
        return [
            Result(area: area, name: "fresh context: \(unit)", unit: .time, ours: middle(all.fresh.map(\.whole))),
            row("context that let \(size) go, first save: \(unit)", first, \.whole, reference: fresh),
            row("context that let \(size) go, first save: save() alone", first, \.save, reference: freshSave),
            row("context that let \(size) go, later save: \(unit)", later, \.whole, reference: fresh, target: .ratio(1.5)),
            row("context that let \(size) go, later save: save() alone", later, \.save, reference: freshSave),
            row("context holding \(size): change 1, \(saveName)", holdingRuns, \.whole, reference: fresh, target: .ratio(2)),
            row("context holding \(size): save() alone", holdingRuns, \.save, reference: freshSave),
        ]
    }

    // MARK: Runs

    /// The next trip to change, and its new name.
    private func nextChange() throws -> (id: UUID, name: String) {
        guard let id = pool.popFirst() else { throw BenchCheckFailed("\(area): no trip left to change") }
        stamp += 1
        let name = "Trip changed \(stamp)"
        names[id] = name
        return (id, name)
    }

    private func fetchTrip(_ id: UUID, in context: ModelContext) throws -> Model {
        let found = try Model.fetch(id: id, in: context)
        guard found.count == 1, let trip = found.first else { throw BenchCheckFailed("\(area): fetched \(found.count) trips of id \(id)") }
        return trip
    }

    /// A fresh context fetches a trip, changes it and saves.
    private func freshRun() throws -> UnitTime {
        let (id, name) = try nextChange()
        var context: ModelContext?
        var trip: Model?
        let time = try UnitTime.measure {
            let fresh = ModelContext(container)
            trip = try fetchTrip(id, in: fresh)
            trip?.name = name
            context = fresh
        } save: {
            try context?.save()
        }
        try checkSaved(id, name)
        return time
    }

    /// `context`, long-lived, fetches a trip, changes it and saves; the trip is held until the
    /// save ends, then let go. Returns the time and the trip's id.
    private func run(in context: ModelContext) throws -> (UnitTime, UUID) {
        let (id, name) = try nextChange()
        var trip: Model?
        let time = try UnitTime.measure {
            trip = try fetchTrip(id, in: context)
            trip?.name = name
        } save: {
            try context.save()
        }
        trip = nil
        try checkSaved(id, name)
        return (time, id)
    }

    /// `context`, holding every trip in `held`, changes one and saves.
    private func run(holding held: [Model], _ index: [UUID: Int], in context: ModelContext) throws -> UnitTime {
        let (id, name) = try nextChange()
        guard let position = index[id] else { throw BenchCheckFailed("\(area): trip \(id) is not held") }
        let trip = held[position]
        let time = try UnitTime.measure {
            trip.name = name
        } save: {
            try context.save()
        }
        try checkSaved(id, name)
        return time
    }

    // MARK: Checks (untimed)

    private func identifier(_ id: UUID) -> PersistentIdentifier {
        PersistentIdentifier(entityName: Model.entityName, primaryKey: .uuid(id))
    }

    /// Fetches every trip into `context` and lets them go, and checks that the context registers
    /// each of them.
    private func checkLetGo(in context: ModelContext) throws {
        let count = try fetchEveryTripAndLetGo(Model.self, into: context)
        guard count == records.count else { throw BenchCheckFailed("\(area): fetched \(count) trips, not \(records.count)") }
        for record in records where (context.registeredModel(for: identifier(record.id)) as Model?) == nil {
            throw BenchCheckFailed("\(area): trip \(record.id) was fetched but is not registered")
        }
    }

    /// After a save of a context that let every trip go: no trip is registered but `changed`,
    /// the one it changed in that save (held until the save ended), so later saves do not encode
    /// the others.
    private func checkForgotten(by context: ModelContext, except changed: UUID) throws {
        for record in records where record.id != changed && (context.registeredModel(for: identifier(record.id)) as Model?) != nil {
            throw BenchCheckFailed("\(area): trip \(record.id), let go, is still registered after a save")
        }
        guard (context.registeredModel(for: identifier(changed)) as Model?) != nil else {
            throw BenchCheckFailed("\(area): trip \(changed), held until its save ended, is no longer registered")
        }
    }

    /// A fresh context reads the name just saved.
    private func checkSaved(_ id: UUID, _ name: String) throws {
        let read = try fetchTrip(id, in: ModelContext(container)).name
        guard read == name else { throw BenchCheckFailed("\(area): trip \(id) reads \"\(read)\" after saving \"\(name)\"") }
    }

    /// Every trip in `container` (the one timed, or one opened anew on its files) holds its last
    /// saved name, and its other values as written.
    func checkEveryTrip(in container: ModelContainer, _ who: String) throws {
        let written = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        let trips = try ModelContext(container).fetch(FetchDescriptor<Model>())
        guard trips.count == records.count else { throw BenchCheckFailed("\(area), \(who): \(trips.count) trips, not \(records.count)") }
        var changed = 0
        for trip in trips {
            guard let record = written[trip.id] else { throw BenchCheckFailed("\(area), \(who): trip \(trip.id) was never written") }
            let name = names[trip.id] ?? record.name
            guard trip.name == name, trip.destination == record.destination, trip.startDate == record.startDate,
                  trip.endDate == record.endDate, trip.visits == record.visits else {
                throw BenchCheckFailed("\(area), \(who): trip \(trip.id) reads \"\(trip.name)\", not \"\(name)\", or other values than written")
            }
            if names[trip.id] != nil { changed += 1 }
        }
        guard changed == names.count else { throw BenchCheckFailed("\(area), \(who): \(changed) trips changed, not \(names.count)") }
    }
}
