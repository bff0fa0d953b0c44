import Foundation
import JSONStore
@_spi(Testing) import PostgresStore
import StoreProtocol
import StoreSync

// A second process for PostgresStore's tests (the tests start it with Foundation's Process):
//
//   pg-store-helper write URL NAMESPACE WRITER COUNT [--unordered]
//       saves COUNT entries, one save each; prints "saved N" and exits 0.
//       --unordered: the sabotaged numbering (a sequence, no commit-order lock).
//   pg-store-helper read URL NAMESPACE
//       opens (creates) the store, prints "ready", then follows history tokens, woken by
//       NOTIFY, until its standard input closes; then reads once more and prints
//       "seen DISTINCT duplicates D nonincreasing N transactions T".
//   pg-store-helper hold-and-change URL NAMESPACE writer|sequence VALUE
//       fetches every entry in one context and prints "holding N"; once its standard input
//       closes, sets the attribute of each to VALUE, saves, and prints "changed".
//   pg-store-helper show URL NAMESPACE
//       prints "ID writer W sequence S" for each entry, by id, then "updated NAMES" for each
//       update in history, in order.
//   pg-store-helper save-until-killed URL NAMESPACE
//       saves entries one by one, printing "acked K" after each acknowledged save and
//       "error MESSAGE" after a failed one (it keeps trying), until killed.
//   pg-store-helper sync-insert URL NAMESPACE JSON-PATH WRITER SEQUENCE
//       a replica: inserts entry wWRITER-SEQUENCE into the JSON store at JSON-PATH (schema:
//       HelperEntry and the sync models), syncs it once with the PostgresStore in NAMESPACE,
//       and prints "pushed N" (the round's pushed transactions).
//   pg-store-helper exclusive-increment URL NAMESPACE [--without-access]
//       prints "taking", then inside the store's withExclusiveAccess (or without it:
//       the negative control) reads entry w0-0 and prints "read SEQUENCE", waits for a line
//       on its standard input, saves SEQUENCE + 1 and prints "saved".

let standardError = FileHandle.standardError

func configuration(_ url: String, _ namespace: String, unordered: Bool = false) throws -> PostgresStoreConfiguration {
    var configuration = try PostgresStoreConfiguration(location: StoreLocation(parsing: url))
    configuration.namespace = namespace
    configuration.schema = Schema(HelperEntry.self)
    configuration.unorderedHistoryNumbersForTesting = unordered
    return configuration
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    switch arguments.first {
    case "write" where arguments.count >= 5:
        let writer = Int(arguments[3]) ?? 0, count = Int(arguments[4]) ?? 0
        let container = try ModelContainer(for: Schema(HelperEntry.self),
            configurations: [configuration(arguments[1], arguments[2], unordered: arguments.contains("--unordered"))])
        let context = ModelContext(container)
        for sequence in 0..<count {
            context.insert(HelperEntry(writer: writer, sequence: sequence))
            try context.save()
        }
        say("saved \(count)")

    case "read" where arguments.count >= 3:
        let store = try PostgresStore(configuration(arguments[1], arguments[2]))
        let wake = DispatchSemaphore(value: 0)
        let observer = try store.observeSaves { wake.signal() }
        let inputClosed = Locked(false)
        Thread.detachNewThread {
            _ = FileHandle.standardInput.readDataToEndOfFile()
            inputClosed.set(true)
            wake.signal()
        }
        var token = try store.currentHistoryToken()
        var lastNumber: Int64 = token?.positions[store.identifier] ?? 0
        var seen: Set<String> = [], duplicates = 0, nonIncreasing = 0, transactions = 0
        say("ready")
        while true {
            let closed = inputClosed.get()
            let new = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
            for transaction in new {
                transactions += 1
                if transaction.transactionIdentifier <= lastNumber { nonIncreasing += 1 }
                lastNumber = transaction.transactionIdentifier
                for change in transaction.changes {
                    guard case .insert = change, case .string(let key) = change.changedPersistentIdentifier.primaryKey else { continue }
                    if !seen.insert(key).inserted { duplicates += 1 }
                }
                token = transaction.token
            }
            if closed { break }
            // Woken by a NOTIFY or by the input closing; the timeout only guards against a
            // notification lost with a broken connection.
            _ = wake.wait(timeout: .now() + 5)
        }
        observer.cancel()
        say("seen \(seen.count) duplicates \(duplicates) nonincreasing \(nonIncreasing) transactions \(transactions)")

    case "save-until-killed" where arguments.count >= 3:
        let container = try ModelContainer(for: Schema(HelperEntry.self), configurations: [configuration(arguments[1], arguments[2])])
        var sequence = 0
        while true {
            let context = ModelContext(container)
            context.insert(HelperEntry(writer: 0, sequence: sequence))
            do {
                try context.save()
                say("acked \(sequence)")
                sequence += 1
            } catch {
                say("error \(error)")
            }
        }

    case "sync-insert" where arguments.count >= 6:
        let schema = Schema([HelperEntry.self] + Replicator.models)
        var remote = try configuration(arguments[1], arguments[2])
        remote.schema = schema
        let local = try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(url: URL(filePath: arguments[3]), schema: schema)])
        let context = ModelContext(local)
        context.insert(HelperEntry(writer: Int(arguments[4]) ?? 0, sequence: Int(arguments[5]) ?? 0))
        try context.save()
        let replicator = try Replicator(local: local, remote: try ModelContainer(for: schema, configurations: [remote]))
        // The replicator is async; this process's main code is not: wait for the round here.
        let round = Locked<Result<SyncReport, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { round.set(.success(try await replicator.sync())) } catch { round.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        say("pushed \(try round.get()!.get().pushedTransactions)")

    case "exclusive-increment" where arguments.count >= 3:
        let container = try ModelContainer(for: Schema(HelperEntry.self), configurations: [configuration(arguments[1], arguments[2])])
        guard let store = container.stores.first as? PostgresStore else { throw DataStoreError(.invalidConfiguration, "not a PostgresStore") }
        let increment = {
            let context = ModelContext(container)
            guard let entry = try context.fetch(FetchDescriptor<HelperEntry>(predicate: #Predicate { $0.id == "w0-0" })).first else {
                throw DataStoreError(.invalidConfiguration, "no entry w0-0: seed it with `write URL NAMESPACE 0 1`")
            }
            say("read \(entry.sequence)")
            _ = readLine()
            entry.sequence += 1
            try context.save()
            say("saved")
        }
        say("taking")
        if arguments.contains("--without-access") { try increment() } else { try store.withExclusiveAccess(increment) }

    case "hold-and-change" where arguments.count >= 5 && ["writer", "sequence"].contains(arguments[3]):
        // A process whose copy of the entries is stale by the time it saves (the lost update).
        let container = try ModelContainer(for: Schema(HelperEntry.self), configurations: [configuration(arguments[1], arguments[2])])
        let context = ModelContext(container)
        let entries = try context.fetch(FetchDescriptor<HelperEntry>())
        say("holding \(entries.count)")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        let value = Int(arguments[4]) ?? 0
        for entry in entries {
            if arguments[3] == "writer" { entry.writer = value } else { entry.sequence = value }
        }
        try context.save()
        say("changed")

    case "show" where arguments.count >= 3:
        let container = try ModelContainer(for: Schema(HelperEntry.self), configurations: [configuration(arguments[1], arguments[2])])
        for entry in try ModelContext(container).fetch(FetchDescriptor<HelperEntry>(sortBy: [SortDescriptor(\.id)])) {
            say("\(entry.id) writer \(entry.writer) sequence \(entry.sequence)")
        }
        for transaction in try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
            for change in transaction.changes {
                guard case .update(let update as DefaultHistoryUpdate<HelperEntry>) = change else { continue }
                say("updated " + update.updatedAttributes.compactMap { HelperEntry.attributeName(of: $0) }.sorted().joined(separator: ","))
            }
        }

    default:
        standardError.write(Data(("usage: pg-store-helper write URL NAMESPACE WRITER COUNT [--unordered] | read URL NAMESPACE"
            + " | hold-and-change URL NAMESPACE writer|sequence VALUE | show URL NAMESPACE | save-until-killed URL NAMESPACE"
            + " | exclusive-increment URL NAMESPACE [--without-access] | sync-insert URL NAMESPACE JSON-PATH WRITER SEQUENCE\n").utf8))
        exit(2)
    }
} catch {
    standardError.write(Data("pg-store-helper: \(error)\n".utf8))
    exit(1)
}

/// A value shared between threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ new: Value) { lock.withLock { value = new } }
}
