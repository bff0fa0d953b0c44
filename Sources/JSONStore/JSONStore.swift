import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreFiles

/// A durable `DataStore` with full history, kept as human-readable JSON.
///
/// - A save appends one checksummed line to the journal and flushes it (`fsync`) before it
///   returns: its cost does not grow with the store. The journal is folded into the base file
///   (write a temporary file, `fsync`, rename, `fsync` the directory) once it outgrows it.
/// - A crash or a power loss at any instant leaves the acknowledged saves and nothing else: a
///   torn last journal line (cut short, or with blocks never written) is cut back before the next
///   append; a damaged base, a damaged line in the middle, and a damaged last line that was
///   written whole are a `DataStoreError/Code/corruptStore` error that leaves the files untouched.
/// - Several processes (an app and its widget) may open one store: writers take an exclusive
///   file lock, readers a shared one, and each reads the other's new journal lines (data and
///   history) without reloading the store.
public final class JSONStore: SnapshotTableStore {
    public typealias Snapshot = DefaultSnapshot
    public typealias HistoryType = DefaultHistoryTransaction

    public let configuration: JSONStoreConfiguration
    public let identifier: String
    public let schema: Schema
    private let files: JSONStoreFiles
    private let state: FileBackedState<JSONStoreState>

    /// Opens the store at `configuration.url`, creating it when it does not exist (unless the
    /// configuration is read-only: then it reads as empty and nothing is created).
    /// - Throws: `DataStoreError/Code/invalidConfiguration` when the directory does not exist, or
    ///   a FIFO, device or directory is where one of the store's files belongs;
    ///   `DataStoreError/Code/corruptStore` for a file that is not a store, of another version,
    ///   or damaged; `DataStoreError/Code/ioFailure` when the system refuses (permissions).
    public init(_ configuration: JSONStoreConfiguration) throws {
        guard let schema = configuration.schema else {
            throw DataStoreError(.invalidSchema, "JSONStore '\(configuration.name)' needs a schema; open it through a ModelContainer.")
        }
        let files = JSONStoreFiles(path: try FileIO.resolvingSymbolicLinks(configuration.url.path))
        let lock = FileLock(path: files.lock)
        var state = JSONStoreState(schema: schema)
        // Read first under a shared lock, which creates nothing: an open that fails (not a
        // store, damaged, another version) or is read-only leaves no file behind.
        try lock.withLock(exclusive: false) { try state.catchUp(files, cutTornTail: false) }
        // A store that waits for a migration is left alone until `migrate` (the container may
        // refuse it instead: then nothing is created, not even the lock file).
        if configuration.allowsSave, !state.needsMigration {
            try lock.withLock(exclusive: true) {
                // No other writer is compacting now: temporary files are a crashed one's.
                try FileIO.removeTemporaryFiles(of: files.base)
                try FileIO.removeTemporaryFiles(of: files.journal)
                try state.catchUp(files, cutTornTail: true)
                if state.base == nil {
                    state.storeIdentifier = UUID().uuidString
                    try state.compact(files)
                }
            }
        }
        self.configuration = configuration
        self.schema = schema
        self.files = files
        identifier = state.storeIdentifier ?? UUID().uuidString
        self.state = FileBackedState(state, fileLock: lock)
    }

    // MARK: Reading and writing under the file lock

    /// Runs `body` on a state that has read every other process's saves.
    /// - Throws: `DataStoreError/Code/incompatibleSchema` while the rows wait for a migration.
    private func read<T>(_ body: (borrowing JSONStoreState) throws -> T) throws -> T {
        try state.read(isCurrent: { try $0.isCurrent(files) }, catchUp: { try $0.catchUp(files, cutTornTail: false) }) { state in
            try requireMigrated(state)
            return try body(state)
        }
    }

    private func requireMigrated(_ state: borrowing JSONStoreState) throws {
        guard state.needsMigration else { return }
        throw DataStoreError(.incompatibleSchema,
            "The JSON store \(files.base) holds data of another schema than this container's "
            + "(\(state.recordedSchema.version.map { "version \($0)" } ?? "unversioned")). Open it through a ModelContainer, which "
            + "migrates it; if another process migrated it to a newer schema while this one had it open, open it with that "
            + "newer schema. Nothing was read or written.")
    }

    /// Runs `body` under the exclusive lock on an up-to-date state, then compacts if due.
    private func write<T>(_ body: (inout JSONStoreState) throws -> T) throws -> T {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly, "The JSON store \(files.base) is read-only (allowsSave is false); nothing was written.")
        }
        return try state.write(catchUp: { try $0.catchUp(files, cutTornTail: true) }) { state in
            try requireMigrated(state)
            let result = try body(&state)
            if state.journalOffset > max(Int64(configuration.compactionThreshold), state.baseSize) {
                // The save is already durable in the journal; a failed fold is retried later.
                try? state.compact(files)
            }
            return result
        }
    }

    // MARK: DataStore

    /// Runs `body` on rows and history that include every other process's saves (for
    /// `SnapshotTableStore`'s fetches and history reads).
    public func withCurrentRows<T>(_ body: (SnapshotTable, HistoryLog) throws -> T) throws -> T {
        try read { try body($0.table, $0.history) }
    }

    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try write { state in
            // `apply` undoes itself when it throws; `append` reloads from disk when the write fails.
            let outcome = try state.table.apply(request, storeIdentifier: identifier)
            guard !outcome.changes.isEmpty else { return outcome.result }
            let record = HistoryRecord(
                transactionNumber: state.history.nextTransactionNumber, author: request.editingState.author,
                timestamp: Date(), changes: outcome.changes)
            var upserts: [JournalEntry.Row] = []
            var deletes: [PersistentIdentifier] = []
            for change in outcome.changes {
                if change.kind == .delete {
                    deletes.append(change.persistentIdentifier)
                } else if let row = state.table.snapshot(for: change.persistentIdentifier) {
                    upserts.append(JournalEntry.Row(entity: change.entityName, values: row.values))
                }
            }
            try state.append(JournalEntry(
                sequence: state.journalSequence + 1, transaction: record, upserts: upserts, deletes: deletes,
                expiredThrough: state.history.retentionBound(configuration.historyRetention, pending: record)),
                files: files, rowsApplied: true)
            return outcome.result
        }
    }

    public func erase() throws {
        try write { state in
            try state.append(JournalEntry(sequence: state.journalSequence + 1, erase: true), files: files)
            try state.compact(files)
        }
    }

    /// Folds the journal into a new base file now.
    /// - Throws: `DataStoreError/Code/ioFailure`; the store is unchanged then.
    public func compact() throws {
        try write { try $0.compact(files) }
    }

    // MARK: Migration

    /// The schema the base file records (`StoredSchema/unrecorded` for a file written before
    /// version 3 of the format), as of the last read.
    public var recordedSchema: StoredSchema? {
        // Nothing here throws: the state is read as it is, without the files.
        try? state.read(isCurrent: { _ in true }, catchUp: { _ in }) { $0.recordedSchema }
    }

    /// Migrates the rows and history and writes them as a new base file, replaced atomically as
    /// compaction does: a crash at any instant leaves the old store or the migrated one. Other
    /// processes that have the store open with the old schema get
    /// `DataStoreError/Code/incompatibleSchema` from then on.
    ///
    /// Cost: the whole store is read, migrated in memory and written once: about one compaction.
    /// - Throws: `DataStoreError/Code/readOnly` for a read-only configuration;
    ///   `DataStoreError/Code/incompatibleSchema` when another process migrated the store
    ///   meanwhile to another schema, or migrated rows break a unique constraint; what a custom
    ///   stage throws; `DataStoreError/Code/ioFailure`. Nothing is changed then.
    public func migrate(_ request: DataStoreMigrationRequest) throws {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly,
                "The JSON store \(files.base) needs migrating to this container's schema but is read-only (allowsSave is false). "
                + "Open it once with saving allowed; nothing was changed.")
        }
        try state.write(catchUp: { try $0.catchUp(files, cutTornTail: true) }) { state in
            if !state.recordedSchema.isUnrecorded, state.recordedSchema.holds(state.storedSchema) { return }   // another process did it
            guard state.recordedSchema.isUnrecorded || state.recordedSchema.hasSameContent(as: request.recordedSchema) else {
                throw DataStoreError(.incompatibleSchema,
                    "The JSON store \(files.base) was migrated to another schema by another process while this one opened it. "
                    + "Open it again; nothing was changed.")
            }
            try state.migrate(request, files: files)
        }
    }

    // MARK: HistoryProviding

    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try write { state in
            let doomed = try state.history.fetch(descriptor, storeIdentifier: identifier, schema: schema).map(\.transactionIdentifier)
            guard !doomed.isEmpty else { return }
            try state.append(JournalEntry(sequence: state.journalSequence + 1, deletedTransactions: doomed), files: files)
        }
    }
}
