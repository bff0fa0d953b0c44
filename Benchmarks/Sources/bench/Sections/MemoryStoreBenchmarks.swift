import Foundation
import MemoryStore
import StoreProtocol

/// MemoryStore beside a plain Swift Dictionary of the same structs.
func benchmarkMemoryStore(_ scale: Scale) throws -> [Result] {
    var results: [Result] = []
    let area = "MemoryStore"
    let total = scale.memoryRecords
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
                          referenceName: "Dictionary", reference: dictionaryByID, target: .atMost(seconds: 2e-6)))

    let predicate = try median(runs: scale.slowRuns) {
        _ = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.visits >= 90 }))
    }
    let dictionaryPredicate = try median(runs: scale.slowRuns) {
        found += dictionary.values.filter { $0.visits >= 90 }.count
    }
    results.append(Result(area: area, name: "predicate fetch (10% of \(total.grouped))", unit: .time, ours: predicate,
                          referenceName: "Dictionary", reference: dictionaryPredicate))
    precondition(found > 0)
    return results
}
