import Foundation
import StoreProtocol
import StoreBuildingBlocks
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
public final class LogStore: DataStore, HistoryProviding, DefaultHistoryBridging {
    public typealias Snapshot = DefaultSnapshot
    public typealias HistoryType = LogTransaction

    public let configuration: LogStoreConfiguration
    public let identifier: String
    public let schema: Schema
    /// `schema`'s stored form, made once: every read and write compares the log's with it.
    private let storedSchema: StoredSchema
    private let files: LogFiles
    private let state: FileBackedState<LogState>
    private let counters = Locked(Statistics())
    /// Entity name -> timestamp attribute.
    private let timestampAttributes: [String: String]

    /// How much a store has read, for tests that check a fetch reads only what is in range
    /// (package: this package's tests read it; it is no API).
    package struct Statistics: Sendable, Equatable {
        package var segmentsRead = 0
        package var recordsDecoded = 0
        /// Bytes of segments read for their records (fetches, history, a save's identifier check);
        /// not those read to catch up with another instance's appends.
        package var bytesRead = 0
    }

    /// What this instance has read since it opened or since `resetStatistics()`.
    package var statistics: Statistics { counters.withLock { $0 } }
    package func resetStatistics() { counters.withLock { $0 = Statistics() } }

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
    private func read<T>(_ body: (LogState) throws -> T) throws -> T {
        try state.read(catchUp: { try $0.refresh(files, cutTornTail: false, skipDamaged: configuration.skipsDamagedRecords) }) { state in
            try requireMigrated(state)
            return try body(state)
        }
    }

    /// Runs `body` under the exclusive lock on an up-to-date, repaired state. Unless `migrating`,
    /// a log that waits for a migration is refused before anything is written, repairs included.
    private func write<T>(migrating: Bool = false, _ body: (inout LogState) throws -> T) throws -> T {
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
    private func requireMigrated(_ state: LogState) throws {
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

    private static func insertOnly(_ what: String) -> DataStoreError {
        .unsupportedFeature("A log store is insert-only: it cannot \(what). Nothing was written. "
            + "Keep models that change in another store (for example a JSONStore) in the same container.")
    }

    // MARK: Reading records

    /// Calls `body` with each record of the segments that may hold `entity` rows in `range`.
    /// Only segments starting at transaction `rangeFrom` or later are skipped (or their records)
    /// by time: before it, the times beside the records mean something else (`LogTimeSource`).
    private func forEachPayload(
        _ state: LogState, entity: String?, range wanted: ClosedRange<Double>?, rangeFrom: Int64 = 0, after transaction: Int64 = 0,
        _ body: (LogPayload) throws -> Void
    ) throws {
        // Records the identity file says were dropped are gone, even while their segment is still
        // there (a drop cut short, which the next writer finishes).
        let transaction = max(transaction, state.expiredThrough)
        // Records written before a migration are read as the recorded schema names things: here,
        // where every read decodes them, so that no read sees the names they were written with.
        let migrations = state.migrations
        let body = migrations.isEmpty ? body : { try body(migrations.migrate($0)) }
        for info in state.segments where !info.isEmpty && info.last > transaction {
            let range = info.first >= rangeFrom ? wanted : nil
            guard info.overlaps(range) else { continue }
            if let entity, !migrations.segment(info).mayHold(entity) { continue }
            let path = files.segment(info.first)
            var reader = try SegmentReader(path: path, bytes: info.bytes)
            counters.withLock { $0.segmentsRead += 1 }
            defer { counters.withLock { [read = reader.bytesRead] in $0.bytesRead += read } }
            // A range read reads the headers, then the records in range; a damaged header makes it
            // read the whole segment below, which finds and names the damage.
            if let range, let records = try reader.records(overlapping: range, expected: Int(info.last - info.first + 1)) {
                try reader.read(records, skipDamaged: configuration.skipsDamagedRecords) { record, bytes in
                    let payload = try Frame.decode(payload: bytes, at: record.offset, path: path)
                    counters.withLock { $0.recordsDecoded += 1 }
                    if payload.transactionNumber > transaction { try body(payload) }
                }
                continue
            }
            let data = try reader.readAll()
            // Only bytes known to hold whole records are read, so a partial record here is damage.
            // A range read checks the checksum of the records it decodes only: the ones it skips
            // by their header times would cost more to check than the read itself.
            let (validEnd, torn) = try SegmentScanner.walk(data, path: path, verify: range == nil, skipDamaged: configuration.skipsDamagedRecords) { bytes, record in
                if let range, record.latest < range.lowerBound || record.earliest > range.upperBound { return }
                if range != nil, !Frame.checksumHolds(bytes, offset: record.offset, end: record.payloadRange.upperBound) {
                    if configuration.skipsDamagedRecords { return }
                    throw SegmentReader.checksumMismatch(path, at: record.offset)
                }
                let payload = try Frame.decode(bytes, record, path: path)
                counters.withLock { $0.recordsDecoded += 1 }
                if payload.transactionNumber > transaction { try body(payload) }
            }
            if torn || validEnd < data.count {
                throw DataStoreError(.corruptStore,
                    "\(path) is damaged at byte \(validEnd): it was read whole before. Restore the log from a backup; nothing was changed.")
            }
        }
    }

    private func snapshots(of entity: String, in range: ClosedRange<Double>?) throws -> [DefaultSnapshot] {
        try read { state in
            var rows: [DefaultSnapshot] = []
            // Skip by time only where the writers placed records by the attribute the range bounds.
            let from = timestampAttributes[entity].flatMap { state.meta?.skipsByTime(entity, attribute: $0) }
            try forEachPayload(state, entity: entity, range: from == nil ? nil : range, rangeFrom: from ?? 0) { payload in
                for row in payload.rows where row.entity == entity {
                    guard let key = row.values["id"] else { continue }
                    rows.append(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entity, primaryKey: key), values: row.values))
                }
            }
            return rows
        }
    }

    // MARK: Identifiers

    /// Refuses inserts whose identifier is already in the log, or twice in the save.
    ///
    /// Each segment knows its records' identifier hashes (the segment being written in memory, a
    /// sealed one as a Bloom filter in its index), so a new identifier costs no read; a hash that
    /// matches is confirmed against the records of the segments that may hold it.
    private func refuseKnownIdentifiers(_ inserted: [DefaultSnapshot], _ state: LogState) throws {
        var inSave = Set<PersistentIdentifier>()
        var suspects = Set<PersistentIdentifier>()
        var segments = Set<Int64>()
        let live = state.segments.filter { !$0.isEmpty && $0.last > state.expiredThrough }
        // A segment's hashes were made with the entity names its records were written with: a
        // record of an entity renamed since is looked for under its old name. Without
        // migrations, that is the name itself (`nil` here: nothing to work out per segment).
        let migrations = state.migrations
        let entities = Set(inserted.map(\.persistentIdentifier.entityName))
        // Segment -> entity -> the stored names whose rows read as it.
        let storedNames: [[String: [String]]]? = migrations.isEmpty ? nil : live.map { info in
            let segment = migrations.segment(info)
            return Dictionary(uniqueKeysWithValues: entities.map { ($0, segment.storedNames(of: $0)) })
        }
        for snapshot in inserted {
            let entity = snapshot.persistentIdentifier.entityName
            guard let key = snapshot.values["id"] else { continue }
            let identifier = PersistentIdentifier(entityName: entity, primaryKey: key)
            guard inSave.insert(identifier).inserted else { throw Self.insertOnly("insert \(identifier) twice in one save") }
            let hash = IdentifierHash.of(entity, key)
            let holders: [SegmentInfo]
            if let storedNames {
                var hashes = [entity: hash]
                for name in Set(storedNames.flatMap { $0[entity] ?? [] }) where hashes[name] == nil { hashes[name] = IdentifierHash.of(name, key) }
                holders = live.indices.filter { index in
                    storedNames[index][entity, default: []].contains { hashes[$0].map(live[index].mayHold) ?? true }
                }.map { live[$0] }
            } else {
                holders = live.filter { $0.mayHold(hash) }
            }
            guard !holders.isEmpty else { continue }
            suspects.insert(identifier)
            segments.formUnion(holders.map(\.first))
        }
        guard !suspects.isEmpty else { return }
        var view = state
        view.segments = state.segments.filter { segments.contains($0.first) }
        var found: PersistentIdentifier?
        try forEachPayload(view, entity: nil, range: nil) { payload in
            for row in payload.rows where found == nil {
                guard let key = row.values["id"] else { continue }
                let identifier = PersistentIdentifier(entityName: row.entity, primaryKey: key)
                if suspects.contains(identifier) { found = identifier }
            }
        }
        if let found {
            throw Self.insertOnly("update \(found), which is already in the log (an insert of an existing id is an update)")
        }
    }

    // MARK: DataStore

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let range = timestampAttributes[T.entityName].flatMap { TimeRange.bounds(of: request.query.filter, attribute: $0) }
        let rows = try snapshots(of: T.entityName, in: range)
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: try QueryEvaluator.fetch(request, over: rows))
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        let descriptor = request.descriptor
        if descriptor.predicate == nil, !descriptor.isPaged, let count = try read({ state -> Int? in
            // Counted from the segments' counts, unless a migration in the middle of a segment
            // renamed or removed some of its rows' entity: then the records are read below.
            let migrations = state.migrations
            var total = 0
            for info in state.segments where info.last > state.expiredThrough {
                guard let count = migrations.segment(info).count(of: T.entityName) else { return nil }
                total += count
            }
            return total
        }) {
            return count
        }
        let range = timestampAttributes[T.entityName].flatMap { TimeRange.bounds(of: request.query.filter, attribute: $0) }
        return try QueryEvaluator.count(request, over: try snapshots(of: T.entityName, in: range))
    }

    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        guard request.updated.isEmpty else { throw Self.insertOnly("update \(request.updated[0].persistentIdentifier)") }
        guard request.deleted.isEmpty else { throw Self.insertOnly("delete \(request.deleted[0].persistentIdentifier)") }
        for snapshot in request.inserted where schema.entity(named: snapshot.persistentIdentifier.entityName) == nil {
            throw DataStoreError.unsupportedFeature("'\(snapshot.persistentIdentifier.entityName)' is not in the log store's schema (\(schema)).")
        }
        guard !request.inserted.isEmpty else { return DataStoreSaveChangesResult(for: identifier) }
        return try write { state in
            try refuseKnownIdentifiers(request.inserted, state)
            let now = Date()
            let payload = LogPayload(
                transactionNumber: state.lastTransaction + 1, author: request.editingState.author, timestamp: now,
                bundleIdentifier: ProcessIdentity.bundleIdentifier, processIdentifier: ProcessIdentity.processIdentifier,
                rows: request.inserted.map { LogPayload.Row(entity: $0.persistentIdentifier.entityName, values: $0.values) })
            var earliest = Double.infinity, latest = -Double.infinity
            for row in payload.rows {
                var time = now.timeIntervalSince1970
                if let attribute = timestampAttributes[row.entity], case .date(let date)? = row.values[attribute] {
                    time = date.timeIntervalSince1970
                }
                earliest = min(earliest, time)
                latest = max(latest, time)
            }
            let frame = try Frame.encode(payload, earliest: earliest, latest: latest)
            // The times beside this record come from this configuration's attributes: if other
            // writers used others, say so first, or range reads would misread them. A log written
            // before logs recorded their schema records this one's (its records are of it now).
            if let meta = state.meta {
                try state.recordBeforeAppending(
                    timeSources: meta.timeSources(for: schema.entities.map(\.name), attributes: timestampAttributes, next: payload.transactionNumber),
                    schema: schema, files: files)
            }
            // A sealed segment is never appended to, even when the record would fit: its index
            // says how long it is. It is the last one when a crash came between its seal and the
            // first append to the next segment.
            if let last = state.segments.last, !last.isEmpty,
               state.sealed.contains(last.first) || last.bytes + Int64(frame.count) > configuration.segmentSize {
                if !state.sealed.contains(last.first) { try state.seal(state.segments.count - 1, files: files) }
                state.segments.append(SegmentInfo(first: payload.transactionNumber))
            } else if state.segments.isEmpty {
                state.segments.append(SegmentInfo(first: payload.transactionNumber))
            }
            var info = state.segments[state.segments.count - 1]
            let sync: Bool
            switch configuration.durability {
            case .everySave: sync = true
            case .periodic(let interval): sync = now.timeIntervalSince(state.lastSync) >= interval
            }
            try FileIO.appendDurably(frame, to: files.segment(info.first), expectedLength: info.bytes, sync: sync)
            if sync { state.lastSync = now }
            info.add(payload, record: Frame.Record(offset: Int(info.bytes), length: frame.count, earliest: earliest,
                                                  latest: latest, payloadRange: 0..<0))
            state.segments[state.segments.count - 1] = info
            state.lastTransaction = payload.transactionNumber
            // The save is durable; a retention step that fails is retried at the next save.
            try? applyRetention(&state, now: now)
            return DataStoreSaveChangesResult(for: identifier)
        }
    }

    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        throw Self.insertOnly("delete \(T.entityName) records")
    }

    public func erase() throws {
        try write { state in
            // Like dropping segments: the identity file first, then the files. The erase takes a
            // transaction number of its own, dropped with the rest, so that every token taken
            // before it is expired (`HistoryLog.removeAll()` does the same).
            try state.recordDropped(through: state.lastTransaction + 1, files: files)
            state.lastTransaction += 1
            while !state.segments.isEmpty { try state.removeOldestSegment(files: files) }
            // The unlinks reach the disk before erase returns: lost, they would bring segments back.
            try state.syncDirectory(files)
        }
    }

    /// Flushes saves not yet on disk (with ``LogDurability/periodic(_:)``).
    public func flush() throws {
        try write { state in
            if let last = state.segments.last { try FileIO.sync(files.segment(last.first)) }
            state.lastSync = Date()
        }
    }

    private func applyRetention(_ state: inout LogState, now: Date) throws {
        let retention = configuration.historyRetention
        var dropped = false
        while state.segments.count > 1, let oldest = state.segments.first {
            let tooOld = retention.maximumAge.map { oldest.newestSave < now.timeIntervalSince1970 - $0 } ?? false
            let tooBig = retention.maximumBytes.map { state.totalBytes > Int64($0) } ?? false
            guard tooOld || tooBig else { break }
            if !state.sealed.contains(oldest.first) { try state.seal(0, files: files) }
            try state.dropOldest(files: files)
            dropped = true
        }
        if dropped { try state.syncDirectory(files) }
    }

    // MARK: Migration

    /// The schema the log's identity file records, as of the last read: the one its records are
    /// read as. `StoredSchema/unrecorded` for a log written before logs recorded their schema
    /// (it records this store's schema with its next save); this store's schema when there is
    /// no log yet (a read-only open of an empty directory: nothing to migrate).
    ///
    /// Cost: none; the files are not read.
    public var recordedSchema: StoredSchema? {
        // Nothing here throws: the state is read as it is, without the files.
        try? state.read(isCurrent: { _ in true }, catchUp: { _ in }) { state in
            state.meta.map(\.recordedSchema) ?? storedSchema
        }
    }

    /// Migrates the log to `request.schema` without rewriting a record: the identity file
    /// records the new schema and the request's lightweight changes, and every read applies
    /// them to the records written before (renamed entities and attributes, defaults, removed
    /// attributes and entities dropped); history written before reads in the new names too. The
    /// identity file is replaced atomically, the migration's only write: a crash at any instant
    /// leaves the log as it was or as migrated. Other instances that have the log open with the
    /// old schema get `DataStoreError/Code/incompatibleSchema` from their next read or save.
    ///
    /// A log does not enforce unique constraints: one added by the migration is recorded in the
    /// schema only, and stored records are not checked against it.
    ///
    /// Cost: O(1) in the size of the log: one flush of the segment being written and one
    /// rewrite of the small identity file. Reads of records written before the migration then
    /// pay O(changes) per row.
    /// - Throws: `DataStoreError/Code/unsupportedFeature` when the request has a custom
    ///   `MigrationStage` (an insert-only log cannot rewrite its records with the stage's
    ///   changes); `DataStoreError/Code/readOnly` for a read-only configuration;
    ///   `DataStoreError/Code/incompatibleSchema` when another process migrated the log to
    ///   another schema meanwhile; `DataStoreError/Code/corruptStore` or
    ///   `DataStoreError/Code/ioFailure` from reading or writing the files. Nothing is changed
    ///   then, except when only the flush of the directory after the replace fails: the log may
    ///   then read as migrated (every instance sees it so), never as anything between.
    public func migrate(_ request: DataStoreMigrationRequest) throws {
        guard !request.hasCustomStages else {
            throw DataStoreError.unsupportedFeature(
                "The log store \(files.directory) cannot run a custom MigrationStage: an insert-only log cannot rewrite its records "
                + "with what the stage's code changes. Migrate it with lightweight changes only (a plan without custom stages, or "
                + "originalName and defaultValue attribute options), or keep these models in a store that supports updates. "
                + "Nothing was changed.")
        }
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly,
                "The log store \(files.directory) needs migrating to this container's schema but is read-only (allowsSave is false). "
                + "Open it once with saving allowed; nothing was changed.")
        }
        try write(migrating: true) { state in
            guard let recorded = state.meta?.recordedSchema else { return }
            if !recorded.isUnrecorded, recorded.holds(storedSchema) { return }   // another process did it
            guard recorded.isUnrecorded || recorded.hasSameContent(as: request.recordedSchema) else {
                throw DataStoreError(.incompatibleSchema,
                    "The log store \(files.directory) was migrated to another schema by another process while this one opened it. "
                    + "Open it again; nothing was changed.")
            }
            try state.recordMigration(request, files: files)
        }
    }

    // MARK: History

    private func payloads(after position: Int64?) throws -> [LogPayload] {
        try read { state in
            if let position {
                try HistoryLog.check(position, lastTransactionNumber: state.lastTransaction,
                                     expiredThrough: state.expiredThrough, storeIdentifier: identifier)
            }
            var result: [LogPayload] = []
            try forEachPayload(state, entity: nil, range: nil, after: position ?? 0) { result.append($0) }
            return result
        }
    }

    private func transaction(_ payload: LogPayload) -> LogTransaction {
        var changes: [HistoryChange] = []
        for (index, row) in payload.rows.enumerated() {
            guard let entity = schema.entity(named: row.entity), let key = row.values["id"] else { continue }
            var time: Date?
            if let attribute = timestampAttributes[row.entity], case .date(let date)? = row.values[attribute] { time = date }
            changes.append(entity.modelType.logInsert(
                PersistentIdentifier(entityName: row.entity, primaryKey: key), change: Int64(index),
                transaction: payload.transactionNumber, time: time))
        }
        return LogTransaction(
            transactionIdentifier: payload.transactionNumber,
            token: LogToken(storeIdentifier: identifier, transactionNumber: payload.transactionNumber),
            author: payload.author, timestamp: payload.timestamp, storeIdentifier: identifier,
            bundleIdentifier: payload.bundleIdentifier, processIdentifier: payload.processIdentifier, changes: changes)
    }

    private func record(_ payload: LogPayload) -> HistoryRecord {
        HistoryRecord(
            transactionNumber: payload.transactionNumber, author: payload.author, timestamp: payload.timestamp,
            bundleIdentifier: payload.bundleIdentifier, processIdentifier: payload.processIdentifier,
            changes: payload.rows.compactMap { row in
                row.values["id"].map { HistoryRecord.Change(kind: .insert, entityName: row.entity, primaryKey: $0) }
            })
    }

    private func position(of token: LogToken?) throws -> Int64? {
        guard let token else { return nil }
        guard token.storeIdentifier == identifier else {
            throw HistoryError(.foreignToken, "The history token belongs to store \(token.storeIdentifier), not to log \(identifier).")
        }
        return token.transactionNumber
    }

    private func position(of token: DefaultHistoryToken?) throws -> Int64? {
        guard let token else { return nil }
        guard let position = token.positions[identifier] else {
            throw HistoryError(.foreignToken,
                "The history token belongs to store(s) \(token.positions.keys.sorted().joined(separator: ", ")), not to log \(identifier).")
        }
        return position
    }

    public func fetchHistory(_ descriptor: HistoryDescriptor<LogTransaction>) throws -> [LogTransaction] {
        try descriptor.apply(to: payloads(after: position(of: descriptor.after)).map(transaction))
    }

    public func deleteHistory(_ descriptor: HistoryDescriptor<LogTransaction>) throws {
        let selected = Set(try fetchHistory(descriptor).map(\.transactionIdentifier))
        try dropLeadingSegments(in: selected)
    }

    public func currentHistoryToken() throws -> LogToken? {
        try read { $0.lastTransaction == 0 ? nil : LogToken(storeIdentifier: identifier, transactionNumber: $0.lastTransaction) }
    }

    /// Drops, oldest first, every segment all of whose transactions are in `selected`.
    private func dropLeadingSegments(in selected: Set<Int64>) throws {
        guard !selected.isEmpty else { return }
        try write { state in
            var dropped = false
            while let oldest = state.segments.first, !oldest.isEmpty,
                  (oldest.first...oldest.last).allSatisfy({ selected.contains($0) }) {
                if !state.sealed.contains(oldest.first) { try state.seal(0, files: files) }
                try state.dropOldest(files: files)
                dropped = true
            }
            if dropped { try state.syncDirectory(files) }
        }
    }

    // MARK: DefaultHistoryBridging

    public func fetchDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try descriptor.apply(to: payloads(after: position(of: descriptor.after)).map {
            DefaultHistoryTransaction(record: record($0), storeIdentifier: identifier, schema: schema)
        })
    }

    public func deleteDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try dropLeadingSegments(in: Set(try fetchDefaultHistory(descriptor).map(\.transactionIdentifier)))
    }

    public func currentDefaultHistoryToken() throws -> DefaultHistoryToken? {
        try currentHistoryToken().map { DefaultHistoryToken(storeIdentifier: $0.storeIdentifier, transactionNumber: $0.transactionNumber) }
    }
}
