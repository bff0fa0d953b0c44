import Foundation
import MemoryStore
import StoreProtocol

/// MemoryStore beside a plain Swift Dictionary of the same structs.
func benchmarkMemoryStore(_ scale: Scale) throws -> [Result] {
    var results: [Result] = []
    let area = "MemoryStore"
    let total = scale.memoryRecords
    // First, while the heap holds nothing of the other rows.
    let residency = try benchmarkMemoryResidency(total)
    let records = (0..<total).map(TripRecord.make)

    progress("MemoryStore: \(total.grouped) inserts")
    var container: ModelContainer?
    let inserts = try median(runs: scale.slowRuns, setUp: { container = nil }) {
        let fresh = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(fresh)
        for record in records { context.insert(Trip(record)) }
        try context.save()
        container = fresh
    }
    var dictionary: [UUID: TripRecord] = [:]
    let dictionaryInserts = try median(runs: scale.slowRuns, setUp: { dictionary = [:] }) {
        for record in records { dictionary[record.id] = record }
    }
    results.append(Result(area: area, name: "\(total.grouped) inserts and a save", unit: .time, ours: inserts,
                          referenceName: "Dictionary", reference: dictionaryInserts, target: .ratio(3)))
    guard let container else { return results }

    progress("MemoryStore: fetches")
    let lookups = records.shuffled().prefix(1_000).map(\.id)
    let byID = try medianPerOperation(runs: scale.runs, operations: lookups.count) { index in
        let id = lookups[index]
        _ = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.id == id }))
    }
    var found = 0
    let dictionaryByID = try medianPerOperation(runs: scale.runs, operations: lookups.count) { index in
        if dictionary[lookups[index]] != nil { found += 1 }
    }
    results.append(Result(area: area, name: "fetch by id, \(total.grouped) records", unit: .time, ours: byID,
                          referenceName: "Dictionary", reference: dictionaryByID, target: .atMost(1.5e-6)))

    let predicate = try median(runs: scale.slowRuns) {
        _ = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.visits >= 90 }))
    }
    let dictionaryPredicate = try median(runs: scale.slowRuns) {
        found += dictionary.values.filter { $0.visits >= 90 }.count
    }
    results.append(Result(area: area, name: "predicate fetch (10% of \(total.grouped))", unit: .time, ours: predicate,
                          referenceName: "Dictionary", reference: dictionaryPredicate, target: .ratio(3)))

    // The 10 latest trips: a sorted fetch with a limit, beside a bounded top-k over the values.
    var latest = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
    latest.fetchLimit = 10
    let top = try median(runs: scale.slowRuns) {
        found += try ModelContext(container).fetch(latest).count
    }
    let dictionaryTop = try median(runs: scale.slowRuns) {
        found += topK(10, of: dictionary.values) { $0.startDate > $1.startDate }.count
    }
    results.append(Result(area: area, name: "top 10 by a sorted attribute of \(total.grouped)", unit: .time, ours: top,
                          referenceName: "Dictionary top-k", reference: dictionaryTop, target: .ratio(2)))

    progress("MemoryStore: \(total.grouped) trips with an indexed name")
    let indexed = try ModelContainer(for: IndexedTrip.self, configurations: MemoryStoreConfiguration())
    do {
        let context = ModelContext(indexed)
        for record in records { context.insert(IndexedTrip(record)) }
        try context.save()
    }
    let names = records.shuffled().prefix(1_000).map(\.name)
    let byName = try medianPerOperation(runs: scale.runs, operations: names.count) { index in
        let name = names[index]
        found += try ModelContext(indexed).fetch(FetchDescriptor<IndexedTrip>(predicate: #Predicate { $0.name == name })).count
    }
    let dictionaryByName = Dictionary(records.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    let dictionaryNameLookup = try medianPerOperation(runs: scale.runs, operations: names.count) { index in
        if dictionaryByName[names[index]] != nil { found += 1 }
    }
    results.append(Result(area: area, name: "indexed equality fetch, 1 of \(total.grouped)", unit: .time, ours: byName,
                          referenceName: "Dictionary by name", reference: dictionaryNameLookup, target: .atMost(1.5e-6)))

    // A 1,000-trip range of the indexed start date, beside a filter over the values (a
    // Dictionary has no order to search).
    let from = TripRecord.epoch.addingTimeInterval(Double(total / 2)), to = from.addingTimeInterval(1_000)
    let range = try median(runs: scale.runs) {
        let found = try ModelContext(indexed).fetch(FetchDescriptor<IndexedTrip>(predicate: #Predicate { $0.startDate >= from && $0.startDate < to }))
        precondition(found.count == 1_000, "the range holds 1,000 trips, not \(found.count)")
    }
    let dictionaryRange = try median(runs: scale.runs) {
        found += dictionary.values.filter { $0.startDate >= from && $0.startDate < to }.count
    }
    results.append(Result(area: area, name: "indexed range fetch, 1,000 of \(total.grouped)", unit: .time, ours: range,
                          referenceName: "Dictionary filter", reference: dictionaryRange, target: .ratio(1)))

    var latestIndexed = FetchDescriptor<IndexedTrip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
    latestIndexed.fetchLimit = 10
    let topIndexed = try median(runs: scale.runs) { found += try ModelContext(indexed).fetch(latestIndexed).count }
    results.append(Result(area: area, name: "top 10 by an indexed attribute of \(total.grouped)", unit: .time, ours: topIndexed,
                          referenceName: "Dictionary top-k", reference: dictionaryTop, target: .ratio(2)))
    results.append(residency)
    precondition(found > 0)
    return results
}

/// The `k` smallest elements by `less`, in order: a bounded insertion into a sorted array of `k`,
/// what one would write over a Dictionary's values.
func topK<C: Collection>(_ k: Int, of elements: C, by less: (C.Element, C.Element) -> Bool) -> [C.Element] {
    var best: [C.Element] = []
    best.reserveCapacity(k + 1)
    for element in elements {
        if best.count == k, let last = best.last, !less(element, last) { continue }
        let position = best.firstIndex { less(element, $0) } ?? best.endIndex
        best.insert(element, at: position)
        if best.count > k { best.removeLast() }
    }
    return best
}
