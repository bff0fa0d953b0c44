import Foundation
import StoreBuildingBlocks
import StoreConformance
import StoreProtocol
import Testing

// The "Writing a backend" article's whole backend, as written there, and the suite run on it:
// a store that keeps its rows and history in memory with the building blocks, in 40 lines.

/// A store with rows and full history in memory: `SnapshotTableStore` gives it fetches, counts,
/// history reads and tokens; it says how to read its rows and how to save, erase and delete
/// history.
final class TinyStore: SnapshotTableStore, @unchecked Sendable {
    // @unchecked: `table` and `history` are only touched while `lock` is held.
    struct Configuration: DataStoreConfiguration {
        typealias Store = TinyStore
        var name = "tiny"
        var schema: Schema?
        var allowsSave = true
    }

    let configuration: Configuration
    let identifier = UUID().uuidString
    let schema: Schema
    private let lock = NSLock()
    private var table: SnapshotTable
    private var history = HistoryLog()

    init(_ configuration: Configuration) throws {
        guard let schema = configuration.schema else { throw DataStoreError(.invalidSchema, "Open a TinyStore through a ModelContainer.") }
        self.configuration = configuration
        self.schema = schema
        table = SnapshotTable(schema: schema)
    }

    func withCurrentRows<T>(_ body: (SnapshotTable, HistoryLog) throws -> T) throws -> T {
        try lock.withLock { try body(table, history) }
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        guard configuration.allowsSave else { throw DataStoreError(.readOnly, "The TinyStore is read-only; nothing was saved.") }
        return try lock.withLock {
            let outcome = try table.apply(request, storeIdentifier: identifier)   // all or nothing
            if !outcome.changes.isEmpty { _ = history.append(author: request.editingState.author, changes: outcome.changes) }
            return outcome.result
        }
    }

    func erase() throws {
        lock.withLock {
            table.removeAll()
            history.removeAll()
        }
    }

    func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try lock.withLock { _ = try history.delete(descriptor, storeIdentifier: identifier, schema: schema) }
    }
}

let tinyTarget = ConformanceTarget(name: "TinyStore", capabilities: [.history, .updates, .historyDeletion]) {
    TinyStore.Configuration()
}

@Test("TinyStore conformance (the article's backend)", arguments: ConformanceSuite.cases(for: tinyTarget))
func tinyStoreConformance(_ check: ConformanceCase) async throws {
    try await check.run(tinyTarget)
}
