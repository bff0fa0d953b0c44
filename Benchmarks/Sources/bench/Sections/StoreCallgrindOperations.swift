import Foundation
import JSONStore
import LogStore
import StoreProtocol

/// The per-row costs of the file stores' timed rows, counted by callgrind
/// (`bench --callgrind json-open|log-save|log-range|log-scan [count]`):
///
/// - `json-open`: a JSON store of `count` trips, compacted, opened and counted once (the
///   "open" row); instructions per row.
/// - `log-save`: `count` trips saved to a log 1,000 per save, the saves alone counted (the
///   "1,000 records per save" row, without its `fsync`s, which callgrind does not see);
///   instructions per record.
/// - `log-range`: `count` 1,000-trip time ranges fetched from a log of 20,000 trips;
///   instructions per range read.
/// - `log-scan`: a log of `count` trips fetched whole once; instructions per row.
func runStoreCallgrindOperation(_ operation: CallgrindOperation, _ count: Int) throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "bench-callgrind-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    func openLog() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: LogStoreConfiguration(
            directory: URL(filePath: directory + "/log"), timestamps: [LogTimestamp(\Trip.startDate)]))
    }
    func contexts(_ log: ModelContainer, _ total: Int) -> [ModelContext] {
        stride(from: 0, to: total, by: 1_000).map { start in
            let context = ModelContext(log)
            for index in start..<min(total, start + 1_000) { context.insert(Trip(TripRecord.make(index))) }
            return context
        }
    }
    switch operation {
    case .jsonOpen:
        let url = URL(filePath: directory + "/trips.json")
        let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(url: url))
        let context = ModelContext(container)
        for index in 0..<count { context.insert(Trip(TripRecord.make(index))) }
        try context.save()
        try (container.stores[0] as? JSONStore)?.compact()
        blackHole(try callgrindRegionJSONOpen(url))
    case .logSave:
        try callgrindRegionLogSave(contexts(try openLog(), count))
    case .logRange:
        let log = try openLog()
        for context in contexts(log, 20_000) { try context.save() }
        let low = TripRecord.epoch.addingTimeInterval(10_000)
        blackHole(try callgrindRegionLogRange(log, count, predicate: tripRange(low, low.addingTimeInterval(999))))
    case .logScan:
        let log = try openLog()
        for context in contexts(log, count) { try context.save() }
        blackHole(try callgrindRegionLogScan(log))
    default:
        throw BenchCheckFailed("\(operation.rawValue) is not a store operation")
    }
}

@inline(never)
func tripRange(_ low: Date, _ high: Date) -> Predicate<Trip> { #Predicate { $0.startDate >= low && $0.startDate <= high } }

@inline(never)
func callgrindRegionJSONOpen(_ url: URL) throws -> Int {
    let reopened = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(url: url))
    return try ModelContext(reopened).fetchCount(FetchDescriptor<Trip>())
}

@inline(never)
func callgrindRegionLogSave(_ contexts: [ModelContext]) throws {
    for context in contexts { try context.save() }
}

@inline(never)
func callgrindRegionLogRange(_ log: ModelContainer, _ count: Int, predicate: Predicate<Trip>) throws -> Int {
    var found = 0
    for _ in 0..<count { found &+= try ModelContext(log).fetch(FetchDescriptor<Trip>(predicate: predicate)).count }
    return found
}

@inline(never)
func callgrindRegionLogScan(_ log: ModelContainer) throws -> Int {
    try ModelContext(log).fetch(FetchDescriptor<Trip>()).count
}
