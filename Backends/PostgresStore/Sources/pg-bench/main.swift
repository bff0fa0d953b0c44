import Foundation
import PostgresStore
import StoreProtocol

// pg-bench: PostgresStore beside the same work written by hand with postgres-nio, and beside
// SQLite through GRDB, in one run, on the server POSTGRES_URL names (Scripts/with-postgres.sh
// starts one):
//
//   bash Scripts/with-postgres.sh swift run -c release pg-bench [--quick]
//   bash Scripts/with-postgres.sh swift run -c release pg-bench sync [CHANGES]   (the sync section alone)
//
// Times are medians in milliseconds; the last column is PostgresStore / plain postgres-nio.
// --quick runs every benchmark a few times on fewer rows, to check that they still run.
// The sync section (SyncBenchmark) replicates `rows` one-attribute changes (100 with --quick).

let quick = CommandLine.arguments.contains("--quick")
let rows = quick ? 1_000 : 10_000
let repetitions = quick ? 3 : 15

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
    // Saves: each contender saves its own copy of the same models.
    let one = (0..<repetitions).map { _ in batch(1) }
    var index = 0
    let storeOne = try medianMilliseconds(repetitions) { try storeSave(one[index]); index += 1 }
    index = 0
    let plainOne = try medianMilliseconds(repetitions) { try plain.save(one[index]); index += 1 }
    index = 0
    let sqliteOne = try medianMilliseconds(repetitions) { try sqlite.save(one[index]); index += 1 }
    report("1-record durable save", store: storeOne, plain: plainOne, sqlite: sqliteOne)

    let thousandRuns = quick ? 1 : 5
    let thousands = (0..<thousandRuns).map { _ in batch(1_000) }
    index = 0
    let storeThousand = try medianMilliseconds(thousandRuns) { try storeSave(thousands[index]); index += 1 }
    index = 0
    let plainThousand = try medianMilliseconds(thousandRuns) { try plain.save(thousands[index]); index += 1 }
    index = 0
    let sqliteThousand = try medianMilliseconds(thousandRuns) { try sqlite.save(thousands[index]); index += 1 }
    report("1,000-record save", store: storeThousand, plain: plainThousand, sqlite: sqliteThousand)

    // Fill up to `rows` rows for the fetches.
    let saved = repetitions + thousandRuns * 1_000
    if rows > saved {
        let rest = batch(rows - saved)
        try storeSave(rest)
        try plain.save(rest)
        try sqlite.save(rest)
    }

    // Indexed fetch: one category, 1% of the rows.
    var category = 0
    let storeIndexed = try medianMilliseconds(repetitions) {
        category = (category + 1) % 100
        let wanted = category
        _ = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<BenchItem>(predicate: #Predicate { $0.category == wanted })))
    }
    let plainIndexed = try medianMilliseconds(repetitions) {
        category = (category + 1) % 100
        _ = try plain.fetch("category = $1", Int64(category))
    }
    let sqliteIndexed = try medianMilliseconds(repetitions) {
        category = (category + 1) % 100
        _ = try sqlite.fetch("category = ?", category)
    }
    report("indexed fetch (1%)", store: storeIndexed, plain: plainIndexed, sqlite: sqliteIndexed)

    // Predicate fetch: value < 1,000, 10% of the rows, no index.
    let storeTenth = try medianMilliseconds(repetitions) {
        _ = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<BenchItem>(predicate: #Predicate { $0.value < 1_000 })))
    }
    let plainTenth = try medianMilliseconds(repetitions) { _ = try plain.fetch("value < $1", 1_000) }
    let sqliteTenth = try medianMilliseconds(repetitions) { _ = try sqlite.fetch("value < ?", 1_000) }
    report("10% predicate fetch", store: storeTenth, plain: plainTenth, sqlite: sqliteTenth)

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
    let storeHistory = try medianMilliseconds(repetitions) {
        let transactions = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: after))
        guard transactions.count == 100 else { throw DataStoreError(.corruptStore, "expected 100 transactions, read \(transactions.count)") }
    }
    let plainHistory = try medianMilliseconds(repetitions) { _ = try plain.history(after: plainAfter) }
    let sqliteHistory = try medianMilliseconds(repetitions) { _ = try sqlite.history(after: sqliteAfter) }
    report("fetchHistory after a token (100)", store: storeHistory, plain: plainHistory, sqlite: sqliteHistory)

    try plain.close()

    // Sync (issue 32): replication to and from the server beside direct saves, and the
    // long-running mode's rate.
    try SyncBenchmark(server: configuration, count: quick ? 100 : rows).run()
} catch {
    FileHandle.standardError.write(Data("pg-bench: \(error)\n".utf8))
    exit(1)
}
