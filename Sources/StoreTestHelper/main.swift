import Foundation
import JSONStore
import LogStore
import StoreProtocol

// A second process for the tests (crashes, several writers) and for quick measurements.
//
//   StoreTestHelper write json|log PATH AUTHOR SAVES BATCHSIZE   one save per line "ack N" on stdout
//   StoreTestHelper read json|log PATH                           "records N", "transactions AUTHOR N"
//   StoreTestHelper measure DIRECTORY                            timings of saves, opens and range reads
//   StoreTestHelper stress json|log DIRECTORY ROUNDS             kill a writer ROUNDS times; check every store
//   StoreTestHelper stress-write json|log PATH SEED              the writer the stress rounds kill

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// A JSON store file, or a log store directory (records placed in time by `time`).
func open(_ kind: String, _ path: String) throws -> ModelContainer {
    switch kind {
    case "json": return try ModelContainer(for: HelperRecord.self, configurations: JSONStoreConfiguration(url: URL(filePath: path)))
    case "log":
        return try ModelContainer(for: HelperRecord.self, configurations: LogStoreConfiguration(
            directory: URL(filePath: path), timestamps: [LogTimestamp(\HelperRecord.time)], segmentSize: 64 << 10))
    default: fail("the store kind is json or log, not \(kind)")
    }
}

func write(kind: String, path: String, author: String, saves: Int, batchSize: Int) throws {
    let container = try open(kind, path)
    let context = ModelContext(container)
    context.author = author
    // The batch numbers of another writer on the same store differ by author.
    for save in 0..<saves {
        for item in 0..<batchSize {
            context.insert(HelperRecord(batch: save, item: item, author: author, payload: String(repeating: "x", count: 20 + (save * 7) % 200)))
        }
        try context.save()
        // Unbuffered: once the line is written, the parent may count the save as acknowledged.
        FileHandle.standardOutput.write(Data("ack \(save)\n".utf8))
    }
    let others = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).filter { $0.author != author }
    FileHandle.standardOutput.write(Data("seen-others \(others.count)\n".utf8))
}

func read(kind: String, path: String) throws {
    let container = try open(kind, path)
    print("records \(try ModelContext(container).fetchCount(FetchDescriptor<HelperRecord>()))")
    let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    for (author, group) in Dictionary(grouping: transactions, by: { $0.author ?? "nil" }).sorted(by: { $0.key < $1.key }) {
        print("transactions \(author) \(group.count)")
    }
}

/// Quick figures for the JSON store (the benchmark package makes them formal).
func measure(directory: String) throws {
    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
    for size in [100, 100_000] {
        let path = directory + "/measure-\(size)-\(UUID().uuidString).json"
        let container = try open("json", path)
        let seed = ModelContext(container)
        for item in 0..<size { seed.insert(HelperRecord(batch: 0, item: item, author: "seed", payload: "a trip of about 145 bytes")) }
        let seedTime = try seconds { try seed.save() }
        if let store = container.stores.first as? JSONStore { try store.compact() }
        var samples: [Double] = []
        for save in 0..<200 {
            let context = ModelContext(container)
            context.insert(HelperRecord(batch: 1, item: save, author: "bench", payload: "one more"))
            samples.append(try seconds { try context.save() })
        }
        samples.sort()
        print(String(format: "store of %6d: seed save %.3f s; 1-record save median %.3f ms, p90 %.3f ms",
                     size, seedTime, samples[samples.count / 2] * 1e3, samples[samples.count * 9 / 10] * 1e3))
        let openTime = try seconds {
            let reopened = try open("json", path)
            _ = try ModelContext(reopened).fetchCount(FetchDescriptor<HelperRecord>())
        }
        print(String(format: "store of %6d: open %.3f s", size, openTime))
    }
}

/// Quick figures for the log store: append throughput and a range read out of a million records.
func measureLog(directory: String) throws {
    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
    let base = Date(timeIntervalSince1970: 1_767_225_600)
    for perSave in [1, 1_000] {
        let container = try open("log", directory + "/log-\(perSave)-\(UUID().uuidString)")
        let saves = perSave == 1 ? 1_000 : 100
        let time = try seconds {
            for save in 0..<saves {
                // A context per save, as a server handles requests: a long-lived context re-checks
                // every model it registered at each save (see README, "Saving and fetching").
                let context = ModelContext(container)
                for item in 0..<perSave {
                    let n = save * perSave + item
                    context.insert(HelperRecord(batch: save, item: item, author: "bench", payload: "reading",
                                                time: base.addingTimeInterval(Double(n))))
                }
                try context.save()
            }
        }
        print(String(format: "log, %4d per durable save: %8.0f records/s (%d saves in %.2f s)", perSave,
                     Double(saves * perSave) / time, saves, time))
    }
    let path = directory + "/log-million-\(UUID().uuidString)"
    let container = try open("log", path)
    let fill = try seconds {
        for save in 0..<1_000 {
            let context = ModelContext(container)
            for item in 0..<1_000 {
                let n = save * 1_000 + item
                context.insert(HelperRecord(batch: save, item: item, author: "bench", payload: "reading", time: base.addingTimeInterval(Double(n))))
            }
            try context.save()
        }
    }
    print(String(format: "log: 1,000,000 records written in %.1f s", fill))
    let reopened = try open("log", path)
    let start = base.addingTimeInterval(500_000), end = base.addingTimeInterval(500_999)
    var samples: [Double] = []
    var count = 0
    for _ in 0..<5 {
        samples.append(try seconds {
            count = try ModelContext(reopened).fetch(FetchDescriptor<HelperRecord>(
                predicate: #Predicate { $0.time >= start && $0.time <= end })).count
        })
    }
    samples.sort()
    print(String(format: "log: %d-row time range out of 1,000,000: median %.1f ms", count, samples[2] * 1e3))
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "write" where arguments.count == 7:
        guard let saves = Int(arguments[5]), let batch = Int(arguments[6]) else { fail("SAVES and BATCHSIZE are numbers") }
        try write(kind: arguments[2], path: arguments[3], author: arguments[4], saves: saves, batchSize: batch)
    case "read" where arguments.count == 4:
        try read(kind: arguments[2], path: arguments[3])
    case "stress" where arguments.count == 5:
        guard let rounds = Int(arguments[4]) else { fail("ROUNDS is a number") }
        try stress(kind: arguments[2], directory: arguments[3], rounds: rounds)
    case "stress-write" where arguments.count == 5:
        guard let seed = UInt64(arguments[4]) else { fail("SEED is a number") }
        try stressWrite(kind: arguments[2], path: arguments[3], seed: seed)
    case "measure" where arguments.count == 3:
        try measure(directory: arguments[2])
        try measureLog(directory: arguments[2])
    default:
        fail("usage: StoreTestHelper write json|log PATH AUTHOR SAVES BATCHSIZE | read json|log PATH | measure DIRECTORY"
             + " | stress json|log DIRECTORY ROUNDS | stress-write json|log PATH SEED")
    }
} catch {
    fail("error: \(error)")
}
