import Foundation
import StoreProtocol
import StoreFiles

/// What the store knows of one segment without reading it: which transactions and times it
/// holds, how many records of each entity, and how many bytes of it are valid. Written beside a
/// sealed segment as its index file, so opening a log does not read its data.
struct SegmentInfo: Codable, Sendable {
    var first: Int64
    var last: Int64
    /// Earliest and latest record time (``LogTimestamp`` attribute, or save time).
    var earliest: Double
    var latest: Double
    /// Save time of the newest transaction, for age retention.
    var newestSave: Double
    var bytes: Int64
    var counts: [String: Int]
    /// A Bloom filter of the records' identifier hashes (`IdentifierFilter`), written at seal.
    var identifierFilter: Data?
    /// The records' identifier hashes, while they are known (the segment was read or written by
    /// this instance, not taken from its index); not written.
    var identifierHashes: Set<UInt64> = []
    /// Whether `identifierHashes` holds every record's (false for an index without a filter).
    var identifiersKnown = true

    enum CodingKeys: String, CodingKey {
        case first, last, earliest, latest, newestSave, bytes, counts, identifierFilter
    }

    init(first: Int64) {
        self.first = first
        last = first - 1
        earliest = .infinity
        latest = -.infinity
        newestSave = 0
        bytes = 0
        counts = [:]
    }

    var isEmpty: Bool { last < first }

    /// Counts a record appended to the segment. `identifierHashes` are its rows' identifier
    /// hashes when the caller has them (a save made them to check its inserts), one per row,
    /// `nil` for a row without an id; otherwise they are made here.
    mutating func add(_ payload: LogPayload, record: Frame.Record, identifierHashes hashes: [UInt64?]? = nil) {
        last = payload.transactionNumber
        earliest = min(earliest, record.earliest)
        latest = max(latest, record.latest)
        newestSave = max(newestSave, payload.timestamp.timeIntervalSince1970)
        bytes = Int64(record.offset + record.length)
        // Counted per run of rows of one entity: a count per row hashed the name each time.
        var runEntity: String?, runLength = 0
        for (index, row) in payload.rows.enumerated() {
            if row.entity == runEntity {
                runLength += 1
            } else {
                if let runEntity { counts[runEntity, default: 0] += runLength }
                runEntity = row.entity
                runLength = 1
            }
            if let hashes {
                if let hash = hashes[index] { identifierHashes.insert(hash) }
            } else if let key = row.values["id"] {
                identifierHashes.insert(IdentifierHash.of(row.entity, key))
            }
        }
        if let runEntity { counts[runEntity, default: 0] += runLength }
    }

    /// Whether a record of this segment may have the identifier of `hash`.
    func mayHold(_ hash: UInt64) -> Bool {
        if identifierHashes.contains(hash) { return true }
        if let identifierFilter { return IdentifierFilter.mayContain(identifierFilter, hash) }
        return !identifiersKnown
    }

    func overlaps(_ range: ClosedRange<Double>?) -> Bool {
        guard let range else { return true }
        return !isEmpty && latest >= range.lowerBound && earliest <= range.upperBound
    }
}

/// The log's files: `store.json` (identity and how far history was dropped),
/// `segment-<first transaction, 20 digits>.log` (records), `segment-….index` (a sealed segment's
/// `SegmentInfo`), `lock`.
struct LogFiles: Sendable {
    let directory: String
    var meta: String { directory + "/store.json" }
    var lock: String { directory + "/lock" }

    func segment(_ first: Int64) -> String { directory + "/segment-" + String(format: "%020lld", first) + ".log" }
    func index(_ first: Int64) -> String { directory + "/segment-" + String(format: "%020lld", first) + ".index" }

    /// The names in the directory.
    func names() throws -> [String] {
        do { return try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw DataStoreError(.ioFailure, "Could not list the log directory \(directory): \(error.localizedDescription).")
        }
    }

    /// The first transaction number of every segment file, ascending.
    /// - Throws: `DataStoreError/Code/corruptStore` for a segment named for a number no log
    ///   reaches (``StoredCounter``), which its records would follow.
    func segmentNumbers() throws -> [Int64] {
        try names().compactMap { name -> Int64? in
            guard name.hasPrefix("segment-"), name.hasSuffix(".log") else { return nil }
            let digits = name.dropFirst("segment-".count).dropLast(".log".count)
            guard digits.allSatisfy({ ("0"..."9").contains($0) }), let number = Int64(digits) else {
                throw DataStoreError(.corruptStore,
                    "\(directory)/\(name) is named as a log segment, but not for a transaction number. Move it out of the log's "
                    + "directory, or restore the log from a backup; nothing was changed.")
            }
            return try StoredCounter.check(number, "a segment numbered", minimum: 1, in: directory + "/" + name)
        }.sorted()
    }
}

extension LogFiles {
    /// Whether `name` is a temporary file of `FileIO/replaceAtomically(_:with:)` for the
    /// identity file or an index (`<name>.tmp-<process>`): one a crash left before its rename.
    static func isTemporary(_ name: String) -> Bool {
        guard let range = name.range(of: FileIO.temporarySuffix), !name[range.upperBound...].isEmpty,
              name[range.upperBound...].allSatisfy(\.isNumber) else { return false }
        let base = name[..<range.lowerBound]
        return base == "store.json" || (base.hasPrefix("segment-") && base.hasSuffix(".index"))
    }

    /// Removes temporary files a crash left. Only a writer holding the exclusive lock calls
    /// this, and every temporary file is written under that lock, so none is in use.
    func removeTemporaryFiles() throws {
        for name in try names() where Self.isTemporary(name) { try FileIO.remove(directory + "/" + name) }
    }

    /// Throws unless the directory holds nothing but what a new log may find there (its lock,
    /// leftover temporary files, hidden files), so that a log is never started among another
    /// program's files or beside segments whose identity file is gone.
    /// - Throws: `DataStoreError/Code/corruptStore` naming what is there.
    func requireNewLogDirectory() throws {
        let others = try names().filter { !$0.hasPrefix(".") && $0 != "lock" && !Self.isTemporary($0) }.sorted()
        guard !others.isEmpty else { return }
        let listed = others.prefix(5).joined(separator: ", ") + (others.count > 5 ? ", …" : "")
        if others.contains(where: { $0.hasPrefix("segment-") }) {
            throw DataStoreError(.corruptStore,
                "\(directory) holds log segments but no store.json. Restore store.json from a backup; nothing was changed.")
        }
        throw DataStoreError(.corruptStore,
            "\(directory) is not a log store: it has no store.json and holds other files (\(listed)). Point the "
            + "configuration at an empty or new directory; nothing was changed.")
    }
}

/// The log's identity file.
///
/// Version 2 records the schema: a file that has `schema` is written as version 2, so that a
/// library that cannot compare schemas refuses the log instead of reading records of another
/// schema as its own, or appending records of its schema after a migration (reads would take
/// them for migrated ones). Version 1 files read as `StoredSchema/unrecorded`.
struct LogMeta: Codable {
    static let formatName = "swift-data-stores/log-store"
    var format = formatName
    var version = 1
    var storeIdentifier: String
    /// The history horizon: the newest transaction dropped by retention, `deleteHistory` or
    /// `erase`; tokens before it expired (`HistoryLog/expiredThrough` of the other stores).
    /// Stored under the key `droppedThrough`, the name identity files have always had.
    var expiredThrough: Int64
    /// Entity name -> where its records' times come from (`LogTimeSource`); `nil` in files
    /// written before this was recorded.
    var timestamps: [String: LogTimeSource]?
    /// The schema the log's records are read as (`recordedSchema`); `nil` in files written
    /// before logs recorded one.
    var schema: StoredSchema?
    /// The migrations reads apply to records written before them (`LogMigrations`), oldest
    /// first; `nil` when there were none.
    var migrations: [LogMigration]?
    /// Whether the file carried a checksum that holds (written since checksums were); a writer
    /// rewrites one without, so that later damage to it is caught.
    var isVerified = true

    enum CodingKeys: String, CodingKey {
        case format, version, storeIdentifier, timestamps, schema, migrations
        case expiredThrough = "droppedThrough"
    }

    /// Exactly the fields an identity file without a checksum may hold: with any other key, it
    /// is a damaged one (a bit flip in `"checksum"` must not make the file look unchecked).
    private static let uncheckedKeys: Set<String> = ["format", "version", "storeIdentifier", "droppedThrough"]

    /// - Throws: `DataStoreError/Code/corruptStore` for a file that is not an identity file,
    ///   or one whose checksum does not hold (a damaged `droppedThrough` would make a writer
    ///   delete segments).
    static func read(_ files: LogFiles) throws -> LogMeta? {
        guard try FileIO.identity(files.meta) != nil else { return nil }
        let data = try FileIO.read(files.meta)
        let value: SnapshotValue, verified: Bool
        switch ChecksummedJSON.read(data) {
        case .verified(let object):
            (value, verified) = (object, true)
        case .unchecked(let fields) where Set(fields.keys) == uncheckedKeys:
            (value, verified) = (.object(fields), false)
        case .unchecked, .damaged:
            if data.range(of: Data(formatName.utf8)) != nil {
                throw DataStoreError(.corruptStore,
                    "\(files.meta), the log's identity file, is damaged (its checksum does not hold). Restore it from a "
                    + "backup; nothing was changed.")
            }
            throw DataStoreError(.corruptStore,
                "\(files.meta) is not a log store's identity file. Point the configuration at another directory; nothing was changed.")
        }
        guard var meta = try? SnapshotDecoder().decode(LogMeta.self, from: value), meta.format == formatName else {
            throw DataStoreError(.corruptStore,
                "\(files.meta) is not a log store's identity file. Point the configuration at another directory; nothing was changed.")
        }
        guard meta.version == 1 || meta.version == 2 else {
            throw DataStoreError(.corruptStore,
                "\(files.meta) is a log store of format version \(meta.version); this library reads versions 1 and 2. Nothing was changed.")
        }
        try meta.checkCounters(path: files.meta)
        meta.isVerified = verified
        return meta
    }

    /// Throws unless every transaction number the file holds is one a log reaches
    /// (``StoredCounter``): the next save adds one to the newest.
    /// - Throws: `DataStoreError/Code/corruptStore` naming the file and the counter.
    private func checkCounters(path: String) throws {
        try StoredCounter.check(expiredThrough, "droppedThrough", in: path)
        for migration in migrations ?? [] { try StoredCounter.check(migration.throughTransaction, "a migration's throughTransaction", in: path) }
        for source in (timestamps ?? [:]).values { try StoredCounter.check(source.since, "a time source's since", in: path) }
    }

    func write(_ files: LogFiles) throws {
        var meta = self
        meta.version = schema == nil ? 1 : 2
        try FileIO.replaceAtomically(files.meta, with: ChecksummedJSON.encode(meta))
    }
}

/// Walks a segment's records.
enum SegmentScanner {
    /// Every whole record from byte `from`: what `body` is given, and where valid bytes end.
    ///
    /// A bad record (a length past the end, a checksum mismatch, a short header) with no valid
    /// record anywhere after it is a torn tail: the walk stops there, unless its checksum holds
    /// over the bytes to the end (a whole record whose length field was damaged: an error). With a valid record after
    /// it, it is damage in front of acknowledged data: an error naming the segment and offset
    /// (or, with `skipDamaged`, the walk resumes at that record).
    /// - Returns: The offset where valid records end, and whether a torn tail follows it.
    static func walk(
        _ data: some ContiguousBytes, path: String, from start: Int = 0, verify: Bool, skipDamaged: Bool,
        _ body: (UnsafeRawBufferPointer, Frame.Record) throws -> Void
    ) throws -> (validEnd: Int, torn: Bool) {
        try data.withUnsafeBytes { bytes in
            var offset = start
            while offset < bytes.count {
                switch Frame.step(bytes, at: offset, verify: verify) {
                case .record(let record):
                    try body(bytes, record)
                    offset += record.length
                case .bad(let reason):
                    if Frame.isWholeWithDamagedLength(bytes, at: offset) {
                        // Its checksum holds over the bytes to the end: an acknowledged record
                        // whose length field was damaged, not a write cut short. Never cut.
                        guard skipDamaged else {
                            throw DataStoreError(.corruptStore,
                                "\(path) is damaged at byte \(offset) (\(reason)): the record there was written whole (its checksum "
                                + "holds over the bytes to the end of the segment), but its length field was changed. Restore the "
                                + "log from a backup, or open it with skipsDamagedRecords to read around it; nothing was changed.")
                        }
                        return (bytes.count, false)
                    }
                    guard let next = Frame.nextValidRecord(bytes, after: offset) else { return (offset, true) }
                    guard skipDamaged else {
                        throw DataStoreError(.corruptStore,
                            "\(path) is damaged at byte \(offset) (\(reason)), and a valid record follows at byte \(next). "
                            + "Restore the log from a backup, or open it with skipsDamagedRecords to read around the damage; "
                            + "nothing was changed.")
                    }
                    offset = next
                }
            }
            return (offset, false)
        }
    }
}
