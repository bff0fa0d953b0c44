import Foundation
import StoreProtocol

/// The paths of one store's files.
struct StoreFiles: Sendable {
    let base: String
    let journal: String
    let lock: String

    init(url: URL) {
        base = url.path
        journal = base + ".journal"
        lock = base + ".lock"
    }
}

/// What one `JSONStore` instance knows of its files: the rows and history as of journal entry
/// `journalSequence`, and where in the files it read up to.
struct StoreState: Sendable {
    let schema: Schema
    var table: SnapshotTable
    /// Rows of entities this schema does not hold, kept so that compaction does not drop them.
    var foreignRows: [String: [SnapshotValue: [String: SnapshotValue]]] = [:]
    var history = HistoryLog()
    var storeIdentifier: String?
    var journalSequence: Int64 = 0
    var baseIdentity: FileIO.Identity?
    var baseSize: Int64 = 0
    var journalIdentity: FileIO.Identity?
    var journalOffset: Int64 = 0

    init(schema: Schema) {
        self.schema = schema
        table = SnapshotTable(schema: schema)
    }

    // MARK: Reading the files

    /// Brings the state up to date with the files: reloads if the base file was replaced, then
    /// replays new journal lines. Writers pass `cutTornTail` to cut a torn last line before they
    /// append (a torn tail left in place would corrupt the next line).
    /// - Throws: ``DataStoreError`` for damaged or foreign files; the files are not changed
    ///   except for cutting a torn tail.
    mutating func catchUp(_ files: StoreFiles, cutTornTail: Bool) throws {
        let base = try FileIO.identity(files.base)
        if base != baseIdentity || base == nil {
            try reload(files, base: base)
        }
        guard let journal = try FileIO.identity(files.journal) else {
            journalIdentity = nil
            journalOffset = 0
            return
        }
        if journal.inode != journalIdentity?.inode || journal.device != journalIdentity?.device || journal.size < journalOffset {
            journalOffset = 0   // a new journal: entries already applied are skipped by sequence
        }
        journalIdentity = journal
        guard journal.size > journalOffset else { return }
        let scan = try Journal.scan(try FileIO.read(files.journal, from: journalOffset), startingAt: journalOffset, path: files.journal)
        for (entry, end) in scan.entries {
            try replay(entry, path: files.journal)
            journalOffset = end
        }
        if scan.hasTornTail, cutTornTail {
            try FileIO.truncate(files.journal, to: scan.validLength)
            journalIdentity = try FileIO.identity(files.journal)
        }
    }

    /// Reads the base file afresh (or starts empty when there is none).
    private mutating func reload(_ files: StoreFiles, base: FileIO.Identity?) throws {
        var fresh = StoreState(schema: schema)
        if base != nil {
            let data = try FileIO.read(files.base)
            let file = try BaseFile.decode(data, path: files.base)
            if let known = storeIdentifier, known != file.storeIdentifier {
                throw DataStoreError(.corruptStore,
                    "\(files.base) now holds another store (\(file.storeIdentifier), not \(known)); it was replaced "
                    + "while open. Reopen the container.")
            }
            try fresh.load(file, path: files.base)
            fresh.baseSize = Int64(data.count)
        } else if try FileIO.identity(files.journal) != nil {
            throw DataStoreError(.corruptStore,
                "\(files.journal) exists but its base file \(files.base) does not. Restore the base file from a backup.")
        }
        fresh.baseIdentity = base
        self = fresh
    }

    private mutating func load(_ file: BaseFile, path: String) throws {
        storeIdentifier = file.storeIdentifier
        journalSequence = file.journalSequence
        for (entityName, rows) in file.entities {
            for values in rows { try write(entityName, values, path: path) }
        }
        history = HistoryLog(records: file.history, lastTransactionNumber: file.lastTransaction,
                             expiredThrough: file.historyExpiredThrough)
    }

    private mutating func write(_ entityName: String, _ values: [String: SnapshotValue], path: String) throws {
        guard let key = values["id"] else {
            throw DataStoreError(.corruptStore, "\(path) has a \(entityName) row without an id. Restore the store from a backup.")
        }
        guard schema.entity(named: entityName) != nil else {
            foreignRows[entityName, default: [:]][key] = values
            return
        }
        do {
            try table.write(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entityName, primaryKey: key), values: values))
        } catch let error as DataStoreError {
            throw DataStoreError(.corruptStore, "\(path) holds rows that break a unique constraint: \(error.message)")
        }
    }

    /// Applies one journal entry; entries already folded into the base are skipped. With
    /// `rowsApplied`, the entry's rows are already in the table (this state wrote the entry).
    mutating func replay(_ entry: JournalEntry, path: String, rowsApplied: Bool = false) throws {
        if entry.sequence <= journalSequence { return }
        guard entry.sequence == journalSequence + 1 else {
            throw DataStoreError(.corruptStore,
                "\(path) skips from entry \(journalSequence) to \(entry.sequence): entries are missing. Restore the store from a backup.")
        }
        if entry.erase == true {
            table.removeAll()
            foreignRows = [:]
            history.removeAll()
        }
        if !rowsApplied {
            for row in entry.upserts ?? [] { try write(row.entity, row.values, path: path) }
            for identifier in entry.deletes ?? [] {
                table.remove(identifier)
                foreignRows[identifier.entityName]?[identifier.primaryKey] = nil
            }
        }
        if let transaction = entry.transaction {
            guard transaction.transactionNumber > history.lastTransactionNumber else {
                throw DataStoreError(.corruptStore,
                    "\(path) records transaction \(transaction.transactionNumber) after \(history.lastTransactionNumber). Restore the store from a backup.")
            }
            history.append(transaction)
        }
        if let bound = entry.historyExpiredThrough { history.delete(through: bound) }
        if let numbers = entry.deletedTransactions { history.delete(transactionNumbers: Set(numbers)) }
        journalSequence = entry.sequence
    }

    // MARK: Writing the files

    /// Appends an entry durably, then applies it to this state (its history and bookkeeping
    /// only, when `rowsApplied` says the table already holds its rows).
    /// - Throws: ``DataStoreError/Code/ioFailure``; the journal is cut back and the state reloaded.
    mutating func append(_ entry: JournalEntry, files: StoreFiles, rowsApplied: Bool = false) throws {
        let line: Data
        do {
            // Inside: a value the journal cannot hold exactly is refused here, after the table
            // took the save, so the state is reloaded as for a failed write.
            line = try Journal.line(for: entry)
            try FileIO.appendDurably(line, to: files.journal, expectedLength: journalOffset)
        } catch {
            baseIdentity = nil   // what is in memory may be ahead of the files: read them again
            try? catchUp(files, cutTornTail: true)
            throw error
        }
        journalOffset += Int64(line.count)
        journalIdentity = try FileIO.identity(files.journal)
        try replay(entry, path: files.journal, rowsApplied: rowsApplied)
    }

    /// The base file for the current state.
    func baseFile() -> BaseFile {
        var entities: [String: [[String: SnapshotValue]]] = [:]
        for entity in schema.entities { entities[entity.name] = table.snapshots(of: entity.name).map(\.values) }
        for (name, rows) in foreignRows where !rows.isEmpty { entities[name] = Array(rows.values) }
        return BaseFile(
            format: BaseFile.formatName, version: BaseFile.currentVersion, storeIdentifier: storeIdentifier ?? UUID().uuidString,
            journalSequence: journalSequence, lastTransaction: history.lastTransactionNumber,
            historyExpiredThrough: history.expiredThrough, entities: entities, history: history.records)
    }

    /// Folds the journal into a new base file: base first (atomic replace), then an empty
    /// journal. A crash between the two leaves a journal whose entries the base already holds,
    /// which replay skips by sequence.
    mutating func compact(_ files: StoreFiles) throws {
        let data = try baseFile().encoded()
        try FileIO.replaceAtomically(files.base, with: data)
        baseIdentity = try FileIO.identity(files.base)
        baseSize = Int64(data.count)
        if journalIdentity != nil {
            try FileIO.replaceAtomically(files.journal, with: Data())
            journalIdentity = try FileIO.identity(files.journal)
            journalOffset = 0
        }
    }
}
