import Foundation
import JSONStore
import LogStore
import StoreProtocol
import StoreTestSupport

// A second process for the tests (crashes, several writers). Measurements live in Benchmarks/.
//
//   StoreTestHelper write json|log PATH AUTHOR SAVES BATCHSIZE   one save per line "ack N" on stdout
//   StoreTestHelper read json|log PATH                           "records N", "transactions AUTHOR N"
//   StoreTestHelper change json PATH PAYLOAD                      sets the payload of every record, one save; "changed N"
//   StoreTestHelper add-note json PATH TITLE                     adds a note to the only folder, one save; "added N" (notes)
//   StoreTestHelper stress json|log DIRECTORY ROUNDS [WRITERS] [sabotage]
//                                                                kill WRITERS writers (1) on one store ROUNDS times;
//                                                                check every store; sabotage: writers acknowledge early
//   StoreTestHelper stress-write json|log PATH SEED [sabotage]   a writer the stress rounds kill
//   StoreTestHelper default-store write AUTHOR PAYLOAD...        records in the default store; "store PATH", "wrote N"
//   StoreTestHelper default-store read                           "record AUTHOR PAYLOAD" for each, sorted
//   StoreTestHelper sync-child LOCAL REMOTE SEED SAVES [SABOTAGE] edits LOCAL, then one sync round with REMOTE (JSON stores);
//                                                                "ack N DIGEST", "phase NAME", "synced …" (see SyncChild.swift)

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

/// Changes one attribute of every stored record: the other process of a lost-update test.
func change(kind: String, path: String, payload: String) throws {
    let context = ModelContext(try open(kind, path))
    let records = try context.fetch(FetchDescriptor<HelperRecord>())
    for record in records { record.payload = payload }
    try context.save()
    print("changed \(records.count)")
}

/// Adds a note titled `title` to the only stored folder of a JSON store of folders: the other
/// process of a to-many merging test.
func addNote(path: String, title: String) throws {
    let container = try ModelContainer(for: HelperFolder.self, configurations: JSONStoreConfiguration(url: URL(filePath: path)))
    let context = ModelContext(container)
    guard let folder = try context.fetch(FetchDescriptor<HelperFolder>()).first else { fail("the store holds no folder") }
    let note = HelperNote(title: title)
    context.insert(note)
    note.folder = folder
    try context.save()
    print("added \(folder.notes.count)")
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "write" where arguments.count == 7:
        guard let saves = Int(arguments[5]), let batch = Int(arguments[6]) else { fail("SAVES and BATCHSIZE are numbers") }
        try write(kind: arguments[2], path: arguments[3], author: arguments[4], saves: saves, batchSize: batch)
    case "change" where arguments.count == 5:
        try change(kind: arguments[2], path: arguments[3], payload: arguments[4])
    case "add-note" where arguments.count == 5 && arguments[2] == "json":
        try addNote(path: arguments[3], title: arguments[4])
    case "read" where arguments.count == 4:
        try read(kind: arguments[2], path: arguments[3])
    case "stress" where (5...7).contains(arguments.count):
        guard let rounds = Int(arguments[4]) else { fail("ROUNDS is a number") }
        guard let writers = arguments.count > 5 ? Int(arguments[5]) : 1, writers >= 1 else { fail("WRITERS is a number, 1 or more") }
        try stress(kind: arguments[2], directory: arguments[3], rounds: rounds, writers: writers,
                   sabotage: arguments.count == 7 && arguments[6] == "sabotage")
    case "stress-write" where (5...6).contains(arguments.count):
        guard let seed = UInt64(arguments[4]) else { fail("SEED is a number") }
        try stressWrite(kind: arguments[2], path: arguments[3], seed: seed, sabotage: arguments.count == 6 && arguments[5] == "sabotage")
    case "default-store" where arguments.count >= 4 && arguments[2] == "write":
        try defaultStoreWrite(author: arguments[3], payloads: Array(arguments.dropFirst(4)))
    case "default-store" where arguments.count == 3 && arguments[2] == "read":
        try defaultStoreRead()
    case "sync-child" where (6...7).contains(arguments.count):
        guard let seed = UInt64(arguments[4]), let saves = Int(arguments[5]) else { fail("SEED and SAVES are numbers") }
        let sabotage = arguments.count == 7 ? SyncSabotage(rawValue: arguments[6]) : nil
        if arguments.count == 7 && sabotage == nil { fail("SABOTAGE is one of \(SyncSabotage.allCases.map(\.rawValue))") }
        try await syncChild(local: arguments[2], remote: arguments[3], seed: seed, saves: saves, sabotage: sabotage)
    default:
        fail("usage: StoreTestHelper write json|log PATH AUTHOR SAVES BATCHSIZE | read json|log PATH | change json PATH PAYLOAD | add-note json PATH TITLE"
             + " | stress json|log DIRECTORY ROUNDS [WRITERS] [sabotage] | stress-write json|log PATH SEED [sabotage]"
             + " | default-store write AUTHOR PAYLOAD... | default-store read | sync-child LOCAL REMOTE SEED SAVES [SABOTAGE]")
    }
} catch {
    fail("error: \(error)")
}
