import Foundation
import MemoryStore
import StoreProtocol

/// Resident memory of `count` trips held in a MemoryStore beside the same trips in a
/// `Dictionary` of structs (issue 30, item 6), both measured in this process, scaled to
/// 1,000,000 trips.
///
/// Each side makes its own trips (`TripRecord.make`), so that each owns its strings (a trip's
/// name is too long to be stored inline). The resident set (`/proc/self/statm`) is read after
/// `malloc_trim(0)` hands freed memory back, so that what a side allocated and freed while it was
/// built (the saving context's models) is not counted: first with neither, then with the
/// dictionary, then with the dictionary and the store, both kept alive to the end. The store's
/// figure is everything it holds: its rows, their column copies and indexes, and the history of
/// the save.
func benchmarkMemoryResidency(_ count: Int) throws -> Result {
    progress("MemoryStore: resident memory of \(count.grouped) trips")
    let before = residentBytes()
    var dictionary: [UUID: TripRecord] = [:]
    for number in 0..<count {
        let record = TripRecord.make(number)
        dictionary[record.id] = record
    }
    let withDictionary = residentBytes()
    let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
    try {
        let context = ModelContext(container)
        for number in 0..<count { context.insert(Trip(TripRecord.make(number))) }
        try context.save()
    }()
    let withStore = residentBytes()
    guard try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == count, dictionary.count == count else {
        throw BenchCheckFailed("memory residency: the store or the dictionary does not hold \(count) trips")
    }
    let perMillion = 1_000_000 / Double(count)
    return Result(area: "MemoryStore", name: "resident memory, per 1,000,000 trips (\(count.grouped) held)", unit: .bytes,
                  ours: Double(withStore - withDictionary) * perMillion,
                  referenceName: "Dictionary of structs", reference: Double(withDictionary - before) * perMillion,
                  target: .ratio(2))
}

/// The process's resident set in bytes, after handing freed heap memory back to the system.
private func residentBytes() -> Int {
    trimHeap()
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// glibc's `malloc_trim(0)`, looked up at run time (Swift's Glibc module leaves malloc.h out).
private func trimHeap() {
    typealias Trim = @convention(c) (Int) -> Int32
    guard let symbol = dlsym(nil, "malloc_trim") else { return }
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
}
