import Foundation
import PostgresStore
import StoreProtocol

// pg-bench: PostgresStore beside the same work written by hand with postgres-nio, and beside
// SQLite through GRDB, in one run, on the server POSTGRES_URL names (Scripts/with-postgres.sh
// starts one):
//
//   bash Scripts/with-postgres.sh swift run -c release pg-bench [--quick] [--no-sync]
//   bash Scripts/with-postgres.sh swift run -c release pg-bench sync [CHANGES]   (the sync section alone)
//
// Times are medians in milliseconds, the contenders timed in turns within each repetition; the
// last column is PostgresStore / plain postgres-nio. --no-sync leaves out the sync section.
// --quick runs every benchmark a few times on fewer rows, to check that they still run.
// The sync section (SyncBenchmark) replicates `rows` one-attribute changes (100 with --quick).

let quick = CommandLine.arguments.contains("--quick")
let rows = quick ? 1_000 : 10_000
let repetitions = quick ? 3 : 31
// --no-sync: the five figures of the table only, without the sync section.
let skipsSync = CommandLine.arguments.contains("--no-sync")

do {
    guard let url = ProcessInfo.processInfo.environment["POSTGRES_URL"] else {
        throw DataStoreError(.invalidConfiguration, "POSTGRES_URL is not set: run pg-bench through Scripts/with-postgres.sh.")
    }
    var configuration = try PostgresStoreConfiguration(location: StoreLocation(parsing: url))
    configuration.namespace = "bench_" + UUID().uuidString.prefix(8).lowercased()
    configuration.schema = Schema(BenchItem.self)
    if CommandLine.arguments.dropFirst().first == "sync" {
        let changes = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? rows
        try SyncBenchmark(server: configuration, count: changes).run()
        exit(0)
    }
    let store = try PostgresStore(configuration)
    let plain = try PlainPostgres(configuration)
    let sqlite = try SQLitePeer()
    defer { sqlite.close() }

    func items(_ count: Int, from start: Int) -> [BenchItem] {
        (start..<start + count).map { BenchItem(name: "item \($0)", category: $0 % 100, value: ($0 &* 7_919) % 10_000) }
    }
    func storeSave(_ batch: [BenchItem]) throws {
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: batch.map(\.snapshot)))
    }

    print("pg-bench\(quick ? " --quick" : ""): \(rows) rows, median of \(repetitions) runs, milliseconds")
    print(["benchmark".padding(toLength: 34, withPad: " ", startingAt: 0), "PostgresStore", "postgres-nio", "GRDB/SQLite", "ratio"].joined(separator: " "))

    var next = 0
    func batch(_ count: Int) -> [BenchItem] {
        defer { next += count }
        return items(count, from: next)
    }
    // Each figure times the contenders in turns within every repetition (interleavedMedians).
    // Saves: each contender saves its own copy of the same models.
    let one = (0..<repetitions).map { _ in batch(1) }
    let saveOne = try interleavedMedians(repetitions, [
        { try storeSave(one[$0]) }, { try plain.save(one[$0]) }, { try sqlite.save(one[$0]) },
    ])
    report("1-record durable save", store: saveOne[0], plain: saveOne[1], sqlite: saveOne[2])

    let thousandRuns = quick ? 1 : 7
    let thousands = (0..<thousandRuns).map { _ in batch(1_000) }
    let saveThousand = try interleavedMedians(thousandRuns, [
        { try storeSave(thousands[$0]) }, { try plain.save(thousands[$0]) }, { try sqlite.save(thousands[$0]) },
    ])
    report("1,000-record save", store: saveThousand[0], plain: saveThousand[1], sqlite: saveThousand[2])

    // Fill up to `rows` rows for the fetches.
    let saved = repetitions + thousandRuns * 1_000
    if rows > saved {
        let rest = batch(rows - saved)
        try storeSave(rest)
        try plain.save(rest)
        try sqlite.save(rest)
    }

    // Indexed fetch: one category, 1% of the rows (the same category for each contender in a turn).
    let indexed = try interleavedMedians(repetitions, [
        { repetition in
            let wanted = repetition % 100
            _ = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<BenchItem>(predicate: #Predicate { $0.category == wanted })))
        },
        { _ = try plain.fetch("category = $1", Int64($0 % 100)) },
        { _ = try sqlite.fetch("category = ?", $0 % 100) },
    ])
    report("indexed fetch (1%)", store: indexed[0], plain: indexed[1], sqlite: indexed[2])

    // Predicate fetch: value < 1,000, 10% of the rows, no index.
    let tenth = try interleavedMedians(repetitions, [
        { _ in _ = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<BenchItem>(predicate: #Predicate { $0.value < 1_000 }))) },
        { _ in _ = try plain.fetch("value < $1", 1_000) },
        { _ in _ = try sqlite.fetch("value < ?", 1_000) },
    ])
    report("10% predicate fetch", store: tenth[0], plain: tenth[1], sqlite: tenth[2])

    // History after a token: the last 100 one-record transactions.
    for _ in 0..<100 {
        let one = batch(1)
        try storeSave(one)
        try plain.save(one)
        try sqlite.save(one)
    }
    let storeToken = try store.currentHistoryToken()
    let storeLast = storeToken?.positions[store.identifier] ?? 0
    let after = DefaultHistoryToken(storeIdentifier: store.identifier, transactionNumber: storeLast - 100)
    let plainAfter = try plain.lastTransaction() - 100, sqliteAfter = try sqlite.lastTransaction() - 100
    let history = try interleavedMedians(repetitions, [
        { _ in
            let transactions = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: after))
            guard transactions.count == 100 else { throw DataStoreError(.corruptStore, "expected 100 transactions, read \(transactions.count)") }
        },
        { _ in _ = try plain.history(after: plainAfter) },
        { _ in _ = try sqlite.history(after: sqliteAfter) },
    ])
    report("fetchHistory after a token (100)", store: history[0], plain: history[1], sqlite: history[2])

    try plain.close()
    if skipsSync { exit(0) }

    // Sync (issue 32): replication to and from the server beside direct saves, and the
    // long-running mode's rate.
    try SyncBenchmark(server: configuration, count: quick ? 100 : rows).run()
} catch {
    FileHandle.standardError.write(Data("pg-bench: \(error)\n".utf8))
    exit(1)
}
