import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreFiles

/// The paths of one store's files.
struct JSONStoreFiles: Sendable {
    let base: String
    let journal: String
    let lock: String

    /// The files of the store at `path` (resolved: see `FileIO/resolvingSymbolicLinks(_:)`).
    init(path: String) {
        base = path
        journal = base + ".journal"
        lock = base + ".lock"
    }
}

/// What one `JSONStore` instance knows of its files: the rows and history as of journal entry
/// `journalSequence`, and the files it read them from.
///
/// The base and journal it read are held open (`OpenFile`): "the file at this path is still
/// the one I read" is then a sound test, where `stat` fields are not (after another process's
/// compaction the kernel reuses the old files' inode numbers, and a same-sized replacement looks
/// unchanged; a stale state appending to the new journal loses saves).
struct JSONStoreState: Sendable {
    let schema: Schema
    /// `schema`'s stored form, made once: every read and every row loaded compares with it.
    let storedSchema: StoredSchema
    var table: SnapshotTable
    /// The schema the base file says its rows were written with.
    var recordedSchema: StoredSchema = .unrecorded {
        didSet { needsMigration = recordedSchema.needsMigration(toHold: storedSchema) }
    }
    /// Whether the rows were written with a schema that does not hold this one's: they are kept
    /// unread (in `foreignRows`) until ``JSONStore/migrate(_:)`` rewrites them.
    private(set) var needsMigration = false
    /// Rows of entities this schema does not hold, kept so that compaction does not drop them;
    /// while `needsMigration`, every row.
    var foreignRows: [String: OrderedRows] = [:]
    var history = HistoryLog()
    var storeIdentifier: String?
    var journalSequence: Int64 = 0
    /// The base file this state was loaded from, held open.
    var base: OpenFile?
    var baseSize: Int64 = 0
    /// The journal this state has read, held open, and how far.
    var journal: OpenFile?
    var journalOffset: Int64 = 0

    init(schema: Schema, storedSchema: StoredSchema? = nil) {
        self.schema = schema
        self.storedSchema = storedSchema ?? StoredSchema(schema)
        table = SnapshotTable(schema: schema)
    }

    /// The schema a new base file records: the recorded one while it holds this schema (it knows
    /// entities this schema lacks, and what it superseded), otherwise this schema's.
    var schemaToRecord: StoredSchema {
        recordedSchema.isUnrecorded ? storedSchema : recordedSchema
    }

    // MARK: Reading the files

    /// Whether the files are exactly as this state last read them (two `stat` calls, no lock).
    func isCurrent(_ files: JSONStoreFiles) throws -> Bool {
        guard let base, try base.isStill(at: files.base) else { return false }
        guard let journal else { return try FileIO.identity(files.journal) == nil }
        return try journal.sizeIfSame(at: files.journal) == journalOffset
    }

    /// Brings the state up to date with the files: reloads if the base file was replaced, then
    /// replays new journal lines. Writers pass `cutTornTail` to cut a torn last line before they
    /// append (a torn tail left in place would corrupt the next line). Call it under the file lock.
    /// - Throws: `DataStoreError` for damaged or foreign files; the files are not changed
    ///   except for cutting a torn tail.
    mutating func catchUp(_ files: JSONStoreFiles, cutTornTail: Bool) throws {
        if try base?.isStill(at: files.base) != true {
            try reload(files)
        }
        if let journal, try !journal.isStill(at: files.journal) {
            // Compaction replaces the base before the journal, so a journal replaced or removed
            // under an unchanged base was not replaced by this library.
            throw DataStoreError(.corruptStore,
                "\(files.journal) was replaced or removed while the store was open, under an unchanged base file; "
                + "saves it held may be gone. Restore the store from a backup.")
        }
        if journal == nil {
            guard let opened = try OpenFile.open(files.journal) else { return }
            journal = opened
            journalOffset = 0
            appliedFromJournal = false
        }
        guard let journal else { return }
        let size = try journal.size()
        guard size != journalOffset else { return }
        guard size > journalOffset else {
            throw DataStoreError(.corruptStore,
                "\(files.journal) is \(size) bytes, shorter than the \(journalOffset) bytes of whole entries already read "
                + "from it: it was cut while open. Restore the store from a backup.")
        }
        let scan = try Journal.scan(try journal.read(from: journalOffset), startingAt: journalOffset, path: files.journal)
        for (entry, end) in scan.entries {
            try replay(entry, path: files.journal, fromJournalStart: !appliedFromJournal)
            journalOffset = end
        }
        if scan.hasTornTail, cutTornTail {
            try FileIO.truncate(files.journal, to: scan.validLength)
        }
    }

    /// Whether an entry of the current journal has been applied (entries that the base already
    /// holds may only come before it: see `replay(_:path:fromJournalStart:rowsApplied:)`).
    private var appliedFromJournal = false

    /// Reads the base file afresh (or starts empty when there is none), forgetting the journal.
    private mutating func reload(_ files: JSONStoreFiles) throws {
        var fresh = JSONStoreState(schema: schema, storedSchema: storedSchema)
        if let base = try OpenFile.open(files.base) {
            let data = try base.read()
            let file = try BaseFile.decode(data, path: files.base, schema: schema)
            if let known = storeIdentifier, known != file.storeIdentifier {
                throw DataStoreError(.corruptStore,
                    "\(files.base) now holds another store (\(file.storeIdentifier), not \(known)); it was replaced "
                    + "while open. Reopen the container.")
            }
            try fresh.load(file, path: files.base)
            fresh.base = base
            fresh.baseSize = Int64(data.count)
        } else if try FileIO.identity(files.journal) != nil {
            throw DataStoreError(.corruptStore,
                "\(files.journal) exists but its base file \(files.base) does not. Restore the base file from a backup.")
        } else if let known = storeIdentifier {
            throw DataStoreError(.corruptStore,
                "\(files.base) of store \(known) was removed while open. Reopen the container to start a new store.")
        }
        self = fresh
    }

    private mutating func load(_ file: BaseFile, path: String) throws {
        storeIdentifier = file.storeIdentifier
        recordedSchema = file.schema
        journalSequence = file.journalSequence
        for (entityName, rows) in file.entities {
            if !needsMigration, schema.entity(named: entityName) != nil {
                // Into the table at once, with the columns the reader filled.
                do {
                    try table.load(entityName, rows: rows, columns: file.columns[entityName])
                } catch RowLoadRefusal.missingPrimaryKey {
                    throw Self.rowWithoutID(entityName, path: path)
                } catch RowLoadRefusal.duplicatePrimaryKey(let key) {
                    throw Self.duplicateRow(entityName, key, path: path)
                } catch let error as DataStoreError {
                    throw DataStoreError(.corruptStore, "\(path) holds rows that break a unique constraint: \(error.message)")
                }
                continue
            }
            for values in rows {
                // A base file holds each row once: a second row with an id (a forged or damaged
                // file) would otherwise replace the first, and one of them would be dropped unseen.
                if let key = values["id"], holdsRow(entityName, key) { throw Self.duplicateRow(entityName, key, path: path) }
                try write(entityName, values, path: path)
            }
        }
        history = HistoryLog(records: file.history, lastTransactionNumber: file.lastTransaction,
                             expiredThrough: file.expiredThrough)
    }

    private static func duplicateRow(_ entityName: String, _ key: SnapshotValue, path: String) -> DataStoreError {
        DataStoreError(.corruptStore,
            "\(path) holds two \(entityName) rows with the id \(key): it is damaged. Restore the store from a "
            + "backup; it was left untouched.")
    }

    private static func rowWithoutID(_ entityName: String, path: String) -> DataStoreError {
        DataStoreError(.corruptStore, "\(path) has a \(entityName) row without an id. Restore the store from a backup.")
    }

    /// Whether a row of `entityName` with the id `key` was loaded already.
    private func holdsRow(_ entityName: String, _ key: SnapshotValue) -> Bool {
        foreignRows[entityName]?.contains(key) == true
            || table.snapshot(for: PersistentIdentifier(entityName: entityName, primaryKey: key)) != nil
    }

    private mutating func write(_ entityName: String, _ values: [String: SnapshotValue], path: String) throws {
        try write([(entityName, values)], path: path)
    }

    /// Writes rows read from a file: those of the schema's entities into the table, checked
    /// against unique constraints together (the rows of one save may have swapped unique values),
    /// the others aside (``foreignRows``).
    private mutating func write(_ rows: [(entity: String, values: [String: SnapshotValue])], path: String) throws {
        var snapshots: [DefaultSnapshot] = []
        for (entityName, values) in rows {
            guard let key = values["id"] else { throw Self.rowWithoutID(entityName, path: path) }
            guard !needsMigration, schema.entity(named: entityName) != nil else {
                foreignRows[entityName, default: OrderedRows()].write(key, values)
                continue
            }
            snapshots.append(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entityName, primaryKey: key), values: values))
        }
        do {
            try table.write(together: snapshots)
        } catch let error as DataStoreError {
            throw DataStoreError(.corruptStore, needsMigration ? error.message : "\(path) holds rows that break a unique constraint: \(error.message)")
        }
    }

    /// Applies one journal entry. With `rowsApplied`, the entry's rows are already in the table
    /// (this state wrote the entry).
    ///
    /// Entries the base already holds are skipped, but only at the start of a journal
    /// (`fromJournalStart`): a crash between the two renames of a compaction leaves them there.
    /// Anywhere else an old sequence number means a writer appended from a stale view.
    mutating func replay(_ entry: JournalEntry, path: String, fromJournalStart: Bool, rowsApplied: Bool = false) throws {
        if entry.sequence <= journalSequence, fromJournalStart { return }
        try StoredCounter.check(entry.sequence, "journal entry", minimum: 1, in: path)
        guard entry.sequence == journalSequence + 1 else {
            throw DataStoreError(.corruptStore,
                "\(path) has entry \(entry.sequence) after entry \(journalSequence): entries are missing or out of order. "
                + "Restore the store from a backup.")
        }
        appliedFromJournal = true
        if entry.erase == true {
            table.removeAll()
            foreignRows = [:]
            history.removeAll()
        }
        if !rowsApplied {
            // Deletes first: an entry's upserts are rows as the save left them, so a save that
            // deleted a model and gave its unique value to another (or inserted a model again
            // under the same id) reads back as it was saved, not as a unique-constraint clash
            // or a missing row.
            for identifier in entry.deletes ?? [] {
                table.remove(identifier)
                foreignRows[identifier.entityName]?.remove(identifier.primaryKey)
            }
            try write((entry.upserts ?? []).map { ($0.entity, $0.values) }, path: path)
        }
        if let transaction = entry.transaction {
            try StoredCounter.check(transaction.transactionNumber, "transaction", minimum: 1, in: path)
            guard transaction.transactionNumber > history.lastTransactionNumber else {
                throw DataStoreError(.corruptStore,
                    "\(path) records transaction \(transaction.transactionNumber) after \(history.lastTransactionNumber). Restore the store from a backup.")
            }
            history.append(transaction)
        }
        if let bound = entry.expiredThrough { history.delete(through: bound) }
        if let numbers = entry.deletedTransactions {
            // A deleted number past the newest transaction would expire every token to come.
            for number in numbers {
                guard number >= 1, number <= history.lastTransactionNumber else {
                    throw DataStoreError(.corruptStore,
                        "\(path) deletes transaction \(number), after the newest one, \(history.lastTransactionNumber). "
                        + "Restore the store from a backup.")
                }
            }
            history.delete(transactionNumbers: Set(numbers))
        }
        journalSequence = entry.sequence
    }

    // MARK: Writing the files

    /// Appends an entry durably, then applies it to this state (its history and bookkeeping
    /// only, when `rowsApplied` says the table already holds its rows).
    /// - Throws: `DataStoreError/Code/ioFailure`; the journal is cut back and the state reloaded.
    mutating func append(_ entry: JournalEntry, files: JSONStoreFiles, rowsApplied: Bool = false) throws {
        let line: Data
        do {
            // Inside: a value the journal cannot hold exactly is refused here, after the table
            // took the save, so the state is reloaded as for a failed write.
            line = try Journal.line(for: entry)
            try FileIO.appendDurably(line, to: files.journal, expectedLength: journalOffset)
            if journal == nil { journal = try OpenFile.open(files.journal) }
        } catch {
            base = nil   // what is in memory may be ahead of the files: read them again
            try? catchUp(files, cutTornTail: true)
            throw error
        }
        journalOffset += Int64(line.count)
        try replay(entry, path: files.journal, fromJournalStart: false, rowsApplied: rowsApplied)
    }

    /// The base file for the current state.
    func baseFile() -> BaseFile {
        var entities: [String: [[String: SnapshotValue]]] = [:]
        for entity in schema.entities { entities[entity.name] = table.snapshots(of: entity.name).map(\.values) }
        for (name, rows) in foreignRows where !rows.isEmpty { entities[name] = rows.all }
        return BaseFile(
            format: BaseFile.formatName, version: BaseFile.currentVersion, storeIdentifier: storeIdentifier ?? UUID().uuidString,
            journalSequence: journalSequence, lastTransaction: history.lastTransactionNumber,
            expiredThrough: history.expiredThrough, schema: schemaToRecord, entities: entities, history: history.records)
    }

    /// Rewrites the store as `request` migrates it: the rows (as read, in order) and history
    /// migrated, a new base file recording `request.schema` put in place atomically, then an
    /// empty journal, as compaction does. A crash at any instant leaves the old base and journal,
    /// or the new base (with a journal whose entries it holds, which replay skips).
    /// - Throws: What the request's stages throw; `DataStoreError/Code/incompatibleSchema` when
    ///   migrated rows break a unique constraint; `DataStoreError/Code/ioFailure`. The files are
    ///   unchanged then, and so is this state.
    mutating func migrate(_ request: DataStoreMigrationRequest, files: JSONStoreFiles) throws {
        var rows: [String: [[String: SnapshotValue]]] = [:]
        for entity in table.schema.entities { rows[entity.name] = table.snapshots(of: entity.name).map(\.values) }
        for (name, entityRows) in foreignRows { rows[name, default: []] += entityRows.all }
        var fresh = JSONStoreState(schema: schema, storedSchema: storedSchema)
        fresh.recordedSchema = request.schema
        do {
            for (entity, entityRows) in try request.migrateRows(rows) {
                for values in entityRows { try fresh.write(entity, values, path: files.base) }
            }
        } catch let error as DataStoreError where error.code == .corruptStore {
            throw DataStoreError(.incompatibleSchema,
                "The JSON store \(files.base) cannot be migrated: rows break a unique constraint of the new schema: "
                + "\(error.message) Remove or change those models in a "
                + "custom MigrationStage's willMigrate; nothing was changed.")
        }
        fresh.history = HistoryLog(records: history.records.map(request.migrate), lastTransactionNumber: history.lastTransactionNumber,
                                   expiredThrough: history.expiredThrough)
        fresh.storeIdentifier = storeIdentifier
        fresh.journalSequence = journalSequence
        fresh.base = base
        fresh.baseSize = baseSize
        fresh.journal = journal
        fresh.journalOffset = journalOffset
        fresh.appliedFromJournal = appliedFromJournal
        try fresh.compact(files)
        self = fresh
    }

    /// Folds the journal into a new base file: base first (atomic replace), then an empty
    /// journal. A crash between the two leaves a journal whose entries the base already holds,
    /// which replay skips by sequence.
    mutating func compact(_ files: JSONStoreFiles) throws {
        let data = try baseFile().encoded()
        do {
            try FileIO.replaceAtomically(files.base, with: data)
            recordedSchema = schemaToRecord
            base = try OpenFile.open(files.base)
            baseSize = Int64(data.count)
            if journal != nil {
                try FileIO.replaceAtomically(files.journal, with: Data())
                journal = try OpenFile.open(files.journal)
                journalOffset = 0
                appliedFromJournal = false
            }
        } catch {
            // A rename may have happened before the failure (of the directory's flush, say):
            // forget what was read, so that the next catch-up reloads whatever the files hold.
            // Each step leaves a consistent pair of files.
            base = nil
            throw error
        }
    }
}
