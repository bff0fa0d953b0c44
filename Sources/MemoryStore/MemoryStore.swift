import Foundation
import StoreProtocol
import StoreBuildingBlocks

/// A `DataStore` that keeps snapshots and full history in memory. Thread-safe; its cost is
/// close to a dictionary of snapshots (a save is O(changes)).
public final class MemoryStore: SnapshotTableStore {
    public typealias Snapshot = DefaultSnapshot
    public typealias HistoryType = DefaultHistoryTransaction

    public let configuration: MemoryStoreConfiguration
    public let identifier: String
    public let schema: Schema
    private let storage: Storage

    /// Opens a fresh store, or the shared one of the same name.
    /// - Throws: `DataStoreError/Code/invalidSchema` without a schema;
    ///   `DataStoreError/Code/invalidConfiguration` when a shared store of this name holds other
    ///   model types; `DataStoreError/Code/unknownEntity` when seed models are not in the schema.
    public init(_ configuration: MemoryStoreConfiguration) throws {
        guard let schema = configuration.schema else {
            throw DataStoreError(.invalidSchema, "MemoryStore '\(configuration.name)' needs a schema; open it through a ModelContainer.")
        }
        self.configuration = configuration
        self.schema = schema
        if configuration.isShared {
            let storage = try Storage.shared(named: configuration.name) { try Storage(schema: schema, seed: configuration.seed) }
            let missing = schema.entities.map(\.name).filter { storage.schema.entity(named: $0) == nil }
            guard missing.isEmpty else {
                throw DataStoreError(.invalidConfiguration,
                    "The shared memory store '\(configuration.name)' was opened for \(storage.schema) and cannot hold "
                    + "\(missing.joined(separator: ", ")). Use another name.")
            }
            // A memory store does not migrate: models that differ would read its rows wrongly.
            guard StoredSchema(storage.schema).holds(schema) else {
                throw DataStoreError(.incompatibleSchema,
                    "The shared memory store '\(configuration.name)' holds models of another shape than this container's "
                    + "(an attribute, relationship or constraint differs); a memory store is not migrated. Use another name; "
                    + "nothing was changed.")
            }
            self.storage = storage
        } else {
            storage = try Storage(schema: schema, seed: configuration.seed)
        }
        identifier = storage.identifier
    }

    /// Runs `body` on the rows and history under the storage's lock (for `SnapshotTableStore`'s
    /// fetches and history reads).
    public func withCurrentRows<T>(_ body: (SnapshotTable, HistoryLog) throws -> T) throws -> T {
        try storage.state.withLock { try body($0.table, $0.history) }
    }

    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly, "The memory store '\(configuration.name)' is read-only; nothing was saved.")
        }
        return try storage.state.withLock { state in
            let outcome = try state.table.apply(request, storeIdentifier: identifier)
            if !outcome.changes.isEmpty {
                state.history.append(author: request.editingState.author, changes: outcome.changes)
                state.history.apply(configuration.historyRetention)
            }
            return outcome.result
        }
    }

    public func erase() throws {
        storage.state.withLock { state in
            state.table.removeAll()
            state.history.removeAll()
        }
    }

    // MARK: HistoryProviding

    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try storage.state.withLock { _ = try $0.history.delete(descriptor, storeIdentifier: identifier, schema: schema) }
    }
}

/// The data of one memory store, shared by every `MemoryStore` opened on it.
private final class Storage: Sendable {
    struct State: Sendable {
        var table: SnapshotTable
        var history = HistoryLog()
    }

    let identifier = UUID().uuidString
    let schema: Schema
    let state: Locked<State>

    init(schema: Schema, seed: (@Sendable () -> [any PersistentModel])?) throws {
        self.schema = schema
        var table = SnapshotTable(schema: schema)
        if let seed {
            let snapshots = try seed().map { model in
                DefaultSnapshot(persistentIdentifier: model.persistentModelID, values: try model.storedValues())
            }
            _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(author: "seed"), inserted: snapshots), storeIdentifier: identifier)
        }
        state = Locked(State(table: table))
    }

    private static let registry = Locked<[String: Storage]>([:])

    static func shared(named name: String, make: () throws -> Storage) throws -> Storage {
        try registry.withLock { registry in
            if let existing = registry[name] { return existing }
            let made = try make()
            registry[name] = made
            return made
        }
    }
}
