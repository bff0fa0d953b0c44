import Foundation
import StoreProtocol
import StoreFiles

/// An insert-only `DataStore` for time-series records: an append-only log of segments, each
/// transaction one framed, checksummed record.
///
/// - Updates and deletes (batch deletes too) are refused with
///   `DataStoreError/Code/unsupportedFeature`, and nothing is written.
/// - A fetch whose predicate bounds a model's ``LogTimestamp`` attribute reads only the segments
///   and records in range; other predicates and sorts are evaluated over every record.
/// - History has its own types (``LogTransaction``, ``LogInsert``, ``LogToken``): inserts only.
///   It is also readable as `DefaultHistoryTransaction` through a container
///   (`DefaultHistoryBridging`), so one token covers a log and other stores.
/// - Retention and `deleteHistory` drop whole old segments; tokens before them expire.
/// - The identity file records the schema. A migration (`migrate(_:)`) rewrites no record:
///   it records the new schema and its lightweight changes, and reads apply them to the records
///   written before. Custom migration stages are refused.
/// - One writer at a time holds the directory's lock; readers see new records on their next read.
///
/// This file opens the store and holds its locking; the rest is by concern, as PostgresStore's:
/// `LogStore+Fetch` (reading records), `+Save` (appends, erase, retention), `+History`, `+Migration`.
public final class LogStore: DataStore, HistoryProviding, DefaultHistoryBridging {
    public typealias Snapshot = DefaultSnapshot
    public typealias HistoryType = LogTransaction

    public let configuration: LogStoreConfiguration
    public let identifier: String
    public let schema: Schema
    /// `schema`'s stored form, made once: every read and write compares the log's with it.
    let storedSchema: StoredSchema
    let files: LogFiles
    let state: FileBackedState<LogState>
    #if DEBUG
    /// What this instance has read (`LogStore+ReadCounters`): debug builds only.
    let counters = Locked(Statistics())
    #endif
    /// Entity name -> timestamp attribute.
    let timestampAttributes: [String: String]

    /// Opens the log in `configuration.directory` (a symbolic link resolved once, here),
    /// creating it unless the configuration is read-only, and cuts a torn last record back to
    /// the last whole transaction. A read-only open, or one that fails, creates nothing.
    /// - Throws: `DataStoreError/Code/invalidConfiguration` for a timestamp key path that is
    ///   not a stored property, a link to nothing, a path that is a file, or a FIFO or device
    ///   where one of the log's files belongs (at once: nothing waits on it);
    ///   `DataStoreError/Code/corruptStore` for a directory that is not a log (other files and
    ///   no `store.json`), a damaged record with valid records after it (naming segment and
    ///   offset), or a transaction number no log reaches; `DataStoreError/Code/ioFailure` when
    ///   the system refuses.
    public init(_ configuration: LogStoreConfiguration) throws {
        guard let schema = configuration.schema else {
            throw DataStoreError(.invalidSchema, "LogStore '\(configuration.name)' needs a schema; open it through a ModelContainer.")
        }
        var attributes: [String: String] = [:]
        // Timestamps of models this store does not hold are ignored: one configuration may
        // serve containers with different models.
        for timestamp in configuration.timestamps where schema.entity(named: timestamp.entityName) != nil {
            guard let attribute = timestamp.attributeName else {
                throw DataStoreError(.invalidConfiguration,
                    "The log store's timestamp for \(timestamp.entityName) must be a stored Date attribute, not a computed one.")
            }
            attributes[timestamp.entityName] = attribute
        }
        let (path, created) = try LogDirectory.resolve(configuration.directory.path, create: configuration.allowsSave)
        let files = LogFiles(directory: path)
        let lock = FileLock(path: files.lock)
        var state = LogState()
        do {
            if configuration.allowsSave {
                if try FileIO.identity(files.lock) == nil {
                    // No writer has opened this directory: check it before the exclusive lock
                    // creates the lock file, so that a refused open leaves nothing behind.
                    var probe = LogState()
                    try probe.refresh(files, cutTornTail: false, skipDamaged: configuration.skipsDamagedRecords)
                    if probe.meta == nil { try Self.requireNewLogDirectory(files) }
                }
                try lock.withLock(exclusive: true) {
                    try state.refresh(files, cutTornTail: true, skipDamaged: configuration.skipsDamagedRecords)
                    try files.removeTemporaryFiles()
                    if state.meta == nil {
                        try files.requireNewLogDirectory()
                        var meta = LogMeta(storeIdentifier: UUID().uuidString, expiredThrough: 0)
                        meta.schema = StoredSchema(schema)
                        meta.timestamps = meta.timeSources(for: schema.entities.map(\.name), attributes: attributes, next: 1)
                        try meta.write(files)
                        state.meta = meta
                        state.metaFile = try OpenFile.open(files.meta)
                    }
                    try state.repair(files: files)
                }
            } else {
                try lock.withLock(exclusive: false) {
                    try state.refresh(files, cutTornTail: false, skipDamaged: configuration.skipsDamagedRecords)
                }
                // A directory of other files is not an empty log, read-only or not.
                if state.directory != nil, state.meta == nil { try Self.requireNewLogDirectory(files) }
            }
        } catch {
            // A directory this open created is removed again, unless another writer's log is in
            // it by now (two processes opening a new log at once): that one holds acknowledged saves.
            if let created { LogDirectory.removeUnlessUsed(configuration.directory.path, createdFrom: created, files: files, lock: lock) }
            throw error
        }
        self.configuration = configuration
        self.schema = schema
        storedSchema = StoredSchema(schema)
        self.files = files
        identifier = state.meta?.storeIdentifier ?? UUID().uuidString
        timestampAttributes = attributes
        self.state = FileBackedState(state, fileLock: lock)
    }

    // MARK: Locking

    /// Runs `body` on a state that has read every other process's appends.
    /// - Throws: `DataStoreError/Code/incompatibleSchema` while the records wait for a migration.
    func read<T>(_ body: (LogState) throws -> T) throws -> T {
        try state.read(catchUp: { try $0.refresh(files, cutTornTail: false, skipDamaged: configuration.skipsDamagedRecords) }) { state in
            try requireMigrated(state)
            return try body(state)
        }
    }

    /// Runs `body` under the exclusive lock on an up-to-date, repaired state. Unless `migrating`,
    /// a log that waits for a migration is refused before anything is written, repairs included.
    func write<T>(migrating: Bool = false, _ body: (inout LogState) throws -> T) throws -> T {
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly, "The log store \(files.directory) is read-only (allowsSave is false); nothing was written.")
        }
        return try state.write(
            // Before the lock, whose file would otherwise be created in a directory that replaced ours.
            beforeLocking: { try $0.directory?.checkLogDirectory() },
            catchUp: { state in
                try state.refresh(files, cutTornTail: true, skipDamaged: configuration.skipsDamagedRecords)
                if !migrating { try requireMigrated(state) }
                try state.repair(files: files)
            },
            body)
    }

    /// Refuses to read or write records of a schema that does not hold this store's: until the
    /// log is migrated, its older records would read wrongly (renamed attributes missing), and
    /// once another process migrated it, this one's records would be written in the old names.
    func requireMigrated(_ state: LogState) throws {
        guard let meta = state.meta, meta.needsMigration(to: storedSchema) else { return }
        let recorded = meta.recordedSchema
        throw DataStoreError(.incompatibleSchema,
            "The log store \(files.directory) holds records of another schema than this container's "
            + "(\(recorded.version.map { "version \($0)" } ?? "unversioned"), entities \(recorded.entities.map(\.name).joined(separator: ", "))). "
            + "Open it through a ModelContainer, which migrates it; if another process migrated it to a newer schema while "
            + "this one had it open, open it again with that newer schema. Nothing was read or written.")
    }

    /// Checks, without the lock (no writer has made one yet), that a directory holds no other
    /// program's files. A `store.json` that appears meanwhile is another writer creating the log
    /// at the same instant: not an error; the locked open that follows, or the next read, reads it.
    private static func requireNewLogDirectory(_ files: LogFiles) throws {
        do {
            try files.requireNewLogDirectory()
        } catch let error as DataStoreError {
            guard (try? FileIO.identity(files.meta)) == nil else { return }
            throw error
        }
    }

    static func insertOnly(_ what: String) -> DataStoreError {
        .unsupportedFeature("A log store is insert-only: it cannot \(what). Nothing was written. "
            + "Keep models that change in another store (for example a JSONStore) in the same container.")
    }
}
