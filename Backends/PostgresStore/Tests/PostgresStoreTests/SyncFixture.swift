import DataStores
import Foundation
import JSONStore
import PostgresStore
import StoreSync

/// Replicas of `HelperEntry` (pg-store-helper's model, HelperEntry.swift is a link to its file,
/// so that a helper process syncs with the test's replicas) syncing through one PostgresStore: local JSON stores in a
/// temporary folder, the remote in a fresh namespace of the test server.
struct SyncFixture {
    static let schema = Schema([HelperEntry.self] + Replicator.models)

    let remoteConfiguration: PostgresStoreConfiguration
    let folder: URL

    /// A fresh namespace (and, when `database` is given, that database of the test server).
    init(database: String? = nil) throws {
        var configuration = try TestServer.configuration()
        if let database { configuration.database = database }
        configuration.schema = Self.schema
        remoteConfiguration = configuration
        folder = FileManager.default.temporaryDirectory.appending(path: "sync-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A container of the remote store (each call opens its own connection).
    func remote() throws -> ModelContainer {
        try ModelContainer(for: Self.schema, configurations: [remoteConfiguration])
    }

    /// The path of the local JSON store `name`.
    func localPath(_ name: String) -> String { folder.appending(path: name + ".json").path }

    /// A container of the local JSON store `name`.
    func local(_ name: String) throws -> ModelContainer {
        try ModelContainer(for: Self.schema, configurations: [JSONStoreConfiguration(url: URL(filePath: localPath(name)), schema: Self.schema)])
    }

    /// Every entry a container holds: id → (writer, sequence).
    static func rows(_ container: ModelContainer) throws -> [String: [Int]] {
        var rows: [String: [Int]] = [:]
        for entry in try ModelContext(container).fetch(FetchDescriptor<HelperEntry>()) { rows[entry.id] = [entry.writer, entry.sequence] }
        return rows
    }

    /// Saves `change` in a new context of `container`, authored by the app.
    static func edit(_ container: ModelContainer, _ change: (ModelContext) throws -> Void) throws {
        let context = ModelContext(container)
        context.author = "app"
        try change(context)
        try context.save()
    }

    /// The entry `id` in `context`.
    static func entry(_ id: String, in context: ModelContext) throws -> HelperEntry? {
        try context.fetch(FetchDescriptor<HelperEntry>(predicate: #Predicate { $0.id == id })).first
    }

    /// The origin transactions each replicated transaction in a container's history applied, by
    /// origin: from authors "StoreSync/<origin>/<first>-<last>" (a batch) and "StoreSync/<origin>/<n>",
    /// with or without the "/merged" a unique-key merge adds; not the stamps, positions or resyncs.
    static func replicatedRanges(_ container: ModelContainer) throws -> [String: [ClosedRange<Int64>]] {
        var ranges: [String: [ClosedRange<Int64>]] = [:]
        for transaction in try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
            guard let author = transaction.author, author.hasPrefix("StoreSync/") else { continue }
            let parts = author.split(separator: "/")
            guard parts.count >= 3 else { continue }
            let numbers = parts[2].split(separator: "-").compactMap { Int64($0) }
            guard let first = numbers.first, let last = numbers.last, first <= last else { continue }
            ranges[String(parts[1]), default: []].append(first...last)
        }
        return ranges
    }

    /// Whether no origin transaction is in two of `ranges`: nothing applied twice.
    static func disjoint(_ ranges: [ClosedRange<Int64>]) -> Bool {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        return zip(sorted, sorted.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound }
    }

    /// Whether `ranges` apply exactly the transactions `app`: each once, none missing, and each
    /// range starting and ending at one of them.
    static func appliesExactly(_ ranges: [ClosedRange<Int64>], _ app: Set<Int64>) -> Bool {
        disjoint(ranges) && ranges.allSatisfy { app.contains($0.lowerBound) && app.contains($0.upperBound) }
            && app.allSatisfy { number in ranges.contains { $0.contains(number) } }
    }

    /// The transaction numbers of the app's own saves in a local container's history.
    static func appTransactions(_ container: ModelContainer) throws -> Set<Int64> {
        Set(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            .filter { !($0.author ?? "").hasPrefix("StoreSync") }.map(\.transactionIdentifier))
    }
}
