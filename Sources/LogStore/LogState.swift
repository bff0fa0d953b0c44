import Foundation
import StoreProtocol
import StoreFiles

/// What one `LogStore` instance knows of its directory.
struct LogState: Sendable {
    /// The directory this instance reads, held open from the first look at it.
    var directory: OpenFile?
    var meta: LogMeta?
    /// The identity file `meta` was read from, held so that a replacement is always noticed.
    var metaFile: OpenFile?
    /// Ascending by first transaction; the last one is the segment being written.
    var segments: [SegmentInfo] = []
    /// Which segments have their index file (sealed).
    var sealed: Set<Int64> = []
    var lastTransaction: Int64 = 0
    var lastSync = Date.distantPast

    var expiredThrough: Int64 { meta?.expiredThrough ?? 0 }
    /// The migrations reads apply to older records.
    var migrations: LogMigrations { LogMigrations(meta?.migrations ?? []) }
    var totalBytes: Int64 { segments.reduce(0) { $0 + $1.bytes } }

    /// Brings this state up to date with the directory: the identity file, segments added or
    /// dropped by another process, and records appended since the last look. A writer passes
    /// `cutTornTail` to cut a torn last record before it appends.
    /// - Throws: `DataStoreError/Code/corruptStore` when the directory or its identity file is
    ///   no longer the store this instance opened (removed, or replaced by another store).
    mutating func refresh(_ files: LogFiles, cutTornTail: Bool, skipDamaged: Bool) throws {
        if let directory {
            try directory.checkLogDirectory()
        } else {
            // A read-only log whose directory does not exist yet is empty.
            guard let handle = try OpenFile.open(files.directory, directory: true) else { return }
            directory = handle
        }
        if try metaFile?.isStill(at: files.meta) != true {
            let file = try OpenFile.open(files.meta)
            let current = try LogMeta.read(files)
            if let known = meta?.storeIdentifier, current?.storeIdentifier != known {
                let now = current.map { "the identity of store \($0.storeIdentifier)" } ?? "no identity file"
                throw DataStoreError(.corruptStore,
                    "\(files.meta) now holds \(now), not that of store \(known) which this instance opened: the log was "
                    + "removed or replaced. Open the store again to use what is there now; nothing was changed.")
            }
            meta = current
            metaFile = file
        }
        let numbers = try files.segmentNumbers()
        let present = Set(numbers)
        segments.removeAll { !present.contains($0.first) }
        sealed = sealed.intersection(present)
        // Segments whose index claims more bytes than they hold: read, and judged below.
        var overclaimed: [Int64: Int64] = [:]
        let known = Set(segments.map(\.first))
        for number in numbers where !known.contains(number) {
            if let info = Self.believedIndex(of: number, files: files) {
                // Nothing is appended to a sealed segment, so a segment longer than its index
                // says is damage. One shorter may be a power loss: logs written before sealing
                // flushed the segment first could lose its last saves under `.periodic`.
                let size = try FileIO.identity(files.segment(number))?.size ?? -1
                if size == info.bytes {
                    var info = info
                    info.identifiersKnown = false   // only the filter, if the index has one
                    segments.append(info)
                    sealed.insert(number)
                } else if size >= 0, size < info.bytes {
                    overclaimed[number] = info.bytes
                    segments.append(SegmentInfo(first: number))
                } else {
                    throw DataStoreError(.corruptStore,
                        "\(files.segment(number)) is \(size) bytes but was sealed at \(info.bytes). Restore the log from a backup; nothing was changed.")
                }
            } else {
                segments.append(SegmentInfo(first: number))
            }
        }
        segments.sort { $0.first < $1.first }
        // Another writer may have sealed a segment this instance already knew unsealed; a crash
        // between its seal and its next append leaves that segment the last one. Its index says
        // so: without it, this writer would append to a sealed segment.
        for index in segments.indices where known.contains(segments[index].first) && !sealed.contains(segments[index].first) {
            let number = segments[index].first
            guard var info = Self.believedIndex(of: number, files: files),
                  try FileIO.identity(files.segment(number))?.size == info.bytes, info.bytes >= segments[index].bytes
            else { continue }
            info.identifiersKnown = false   // only the filter, as for an index read at open
            segments[index] = info
            sealed.insert(number)
        }
        // Read what was appended to segments without an index (normally only the last one).
        var tornAt: [Int: Int] = [:]
        for index in segments.indices where !sealed.contains(segments[index].first) {
            let path = files.segment(segments[index].first)
            guard let size = try FileIO.identity(path)?.size, size != segments[index].bytes else { continue }
            // Appends only grow a segment, and a torn tail is cut back only to whole records,
            // which were not counted: shorter than what was read is a file cut or replaced.
            guard size >= segments[index].bytes else { throw LogState.shrunk(path, size: size, read: segments[index].bytes) }
            let data = try FileIO.read(path)
            var info = segments[index]
            let start = Int(min(info.bytes, Int64(data.count)))
            let (validEnd, torn) = try SegmentScanner.walk(data, path: path, from: start, verify: true, skipDamaged: skipDamaged) { bytes, record in
                let payload = try Frame.decode(bytes, record, path: path)
                guard payload.transactionNumber == info.last + 1 || skipDamaged else {
                    throw DataStoreError(.corruptStore,
                        "\(path) holds transaction \(payload.transactionNumber) at byte \(record.offset) after \(info.last): "
                        + "records are missing. Restore the log from a backup; nothing was changed.")
                }
                info.add(payload, record: record)
            }
            info.bytes = Int64(validEnd)
            segments[index] = info
            if torn { tornAt[index] = validEnd }
        }
        // A torn or overclaimed segment loses only unflushed saves when no later segment holds a
        // record (a crash between creating the next segment and flushing anything into it);
        // before records, it is damage.
        let lossEnds = Set(tornAt.keys).union(segments.indices.filter { overclaimed[segments[$0].first] != nil })
        for index in lossEnds.sorted() where segments[(index + 1)...].contains(where: { !$0.isEmpty }) {
            let path = files.segment(segments[index].first)
            if let claimed = overclaimed[segments[index].first] {
                throw DataStoreError(.corruptStore,
                    "\(path) is \(segments[index].bytes) bytes but was sealed at \(claimed), and later segments hold records. "
                    + "Restore the log from a backup; nothing was changed.")
            }
            throw DataStoreError(.corruptStore,
                "\(path) ends in a partial record at byte \(segments[index].bytes), but it is not the segment being written. "
                + "Restore the log from a backup; nothing was changed.")
        }
        if cutTornTail, let first = lossEnds.min() {
            // The writer makes the damaged segment the one being written again: the empty
            // segments after it (named for transactions that are gone) go first, then its stale
            // index, then its torn tail. A crash between the steps leaves a state this repeats.
            while segments.count > first + 1, let later = segments.last {
                try FileIO.remove(files.segment(later.first))
                try FileIO.remove(files.index(later.first))
                segments.removeLast()
                sealed.remove(later.first)
            }
            if overclaimed[segments[first].first] != nil { try FileIO.remove(files.index(segments[first].first)) }
            if tornAt[first] != nil { try FileIO.truncate(files.segment(segments[first].first), to: segments[first].bytes) }
        }
        // Segments follow each other without gaps. Segments the identity file says were dropped
        // are left out: their unlinks may be lost in any order, and no read uses them (a writer
        // removes them).
        let whole = segments.filter { !$0.isEmpty && $0.last > expiredThrough }
        for (earlier, later) in zip(whole, whole.dropFirst()) where earlier.last + 1 != later.first && !skipDamaged {
            throw DataStoreError(.corruptStore,
                "\(files.directory): segment \(files.segment(later.first)) starts at transaction \(later.first), but the one "
                + "before it ends at \(earlier.last). Restore the log from a backup; nothing was changed.")
        }
        lastTransaction = max(lastTransaction, expiredThrough, segments.last(where: { !$0.isEmpty })?.last ?? 0)
    }

    /// A segment's index file, when it is one to believe. An index is a cache: one that is
    /// missing, damaged or does not fit its segment is ignored and the segment read instead. One
    /// without a checksum that holds is not believed: it decides which segments a read skips and
    /// what counts say.
    private static func believedIndex(of number: Int64, files: LogFiles) -> SegmentInfo? {
        guard let data = try? FileIO.read(files.index(number)), case .verified(let value) = ChecksummedJSON.read(data),
              let info = try? SnapshotDecoder().decode(SegmentInfo.self, from: value),
              info.first == number, info.last >= info.first, info.last <= StoredCounter.limit, info.bytes >= 0 else { return nil }
        return info
    }

    /// The error for a segment now shorter than the whole records already read from it.
    static func shrunk(_ path: String, size: Int64, read: Int64) -> DataStoreError {
        DataStoreError(.corruptStore,
            "\(path) is \(size) bytes, but \(read) bytes of whole records were read from it before: it was cut or replaced. "
            + "Restore the log from a backup; nothing was changed.")
    }

    /// Writes the index file of a segment that is full, so later opens need not read it.
    mutating func seal(_ index: Int, files: LogFiles) throws {
        var info = segments[index]
        if info.identifiersKnown, info.identifierFilter == nil {
            info.identifierFilter = IdentifierFilter.make(info.identifierHashes)
            info.identifierHashes = []
            segments[index] = info
        }
        // The segment's data reaches the disk before an index that describes it: with
        // `.periodic` durability its last saves may not have been flushed yet.
        try FileIO.sync(files.segment(info.first))
        try FileIO.replaceAtomically(files.index(info.first), with: ChecksummedJSON.encode(info))
        sealed.insert(info.first)
    }

    /// What a writer repairs once the directory checked out: a drop that was cut short (finished),
    /// index files of full segments that were missing or not believed (damaged, or written before
    /// indexes had checksums), and an identity file without a checksum (both rewritten from what
    /// was just read).
    mutating func repair(files: LogFiles) throws {
        try removeDroppedSegments(files: files)
        for index in segments.indices.dropLast() where !segments[index].isEmpty && !sealed.contains(segments[index].first) {
            try seal(index, files: files)
        }
        if let meta, !meta.isVerified {
            var rewritten = meta
            rewritten.isVerified = true
            try rewritten.write(files)
            self.meta = rewritten
            metaFile = try OpenFile.open(files.meta)
        }
    }

    /// Drops the oldest segment: first the identity file records how far history is gone, then
    /// the files go (a crash between the two leaves files that the next open removes).
    mutating func dropOldest(files: LogFiles) throws {
        guard let oldest = segments.first else { return }
        try recordDropped(through: oldest.last, files: files)
        try removeOldestSegment(files: files)
    }

    /// Records in the identity file that history up to `transaction` is gone.
    mutating func recordDropped(through transaction: Int64, files: LogFiles) throws {
        guard var meta, transaction > meta.expiredThrough else { return }
        meta.expiredThrough = transaction
        // Migrations of dropped records only are no longer needed: no read gets them.
        meta.migrations = meta.migrations?.filter { $0.throughTransaction > transaction }
        if meta.migrations?.isEmpty == true { meta.migrations = nil }
        try meta.write(files)
        self.meta = meta
        metaFile = try OpenFile.open(files.meta)
    }

    /// Records in the identity file where records' times come from (`sources`, unless `nil`),
    /// and `schema` when the file records none yet (a log written before logs recorded their
    /// schema), before a record placed by them or of that schema is appended.
    mutating func recordBeforeAppending(timeSources sources: [String: LogTimeSource]?, schema: Schema, files: LogFiles) throws {
        guard var meta, sources != nil || meta.schema == nil else { return }
        if let sources { meta.timestamps = sources }
        if meta.schema == nil { meta.schema = StoredSchema(schema) }
        try meta.write(files)
        self.meta = meta
        metaFile = try OpenFile.open(files.meta)
    }

    /// Migrates the log as `request` says, by rewriting the identity file only: it records the
    /// new schema and `request`'s row changes, for reads to apply to the records up to the last
    /// one. The one atomic replace of the file is the migration's commit point: a crash leaves
    /// the old log or the migrated one.
    mutating func recordMigration(_ request: DataStoreMigrationRequest, files: LogFiles) throws {
        guard var meta else { return }
        meta.recordMigration(request.rowMigration, to: request.schema, lastTransaction: lastTransaction)
        // The records the migration covers reach the disk before the file that says so: with
        // `.periodic` durability the last ones may not have been flushed, and records lost with
        // the power would be numbered again, after the migration, and read as if before it.
        // (Sealed segments were flushed when sealed.)
        if let last = segments.last(where: { !$0.isEmpty }), !sealed.contains(last.first) { try FileIO.sync(files.segment(last.first)) }
        try meta.write(files)
        self.meta = meta
        metaFile = try OpenFile.open(files.meta)
    }

    /// Removes the oldest segment's files.
    mutating func removeOldestSegment(files: LogFiles) throws {
        guard let oldest = segments.first else { return }
        try FileIO.remove(files.segment(oldest.first))
        try FileIO.remove(files.index(oldest.first))
        segments.removeFirst()
        sealed.remove(oldest.first)
    }

    /// Removes segments the identity file says were dropped (an interrupted drop), the one
    /// being written too: `erase()` and `deleteHistory` drop it, and a crash before its removal
    /// must not bring part of what they dropped back. An empty segment named for a dropped
    /// transaction (its records lost with the power under `.periodic`) goes too, or the next
    /// save would land in it after a gap.
    mutating func removeDroppedSegments(files: LogFiles) throws {
        var removed = false
        while let oldest = segments.first, oldest.isEmpty ? oldest.first <= expiredThrough : oldest.last <= expiredThrough {
            try removeOldestSegment(files: files)
            removed = true
        }
        if removed { try syncDirectory(files) }
    }

    /// Makes the unlinks of dropped segments durable, so that a power loss cannot bring them back.
    func syncDirectory(_ files: LogFiles) throws {
        try FileIO.syncDirectory(of: files.meta)
    }
}
