import Foundation
import StoreProtocol

/// What one `LogStore` instance knows of its directory.
struct LogState: Sendable {
    /// The directory this instance reads, held open from the first look at it.
    var directory: DirectoryHandle?
    var meta: LogMeta?
    var metaIdentity: FileIO.Identity?
    /// Ascending by first transaction; the last one is the segment being written.
    var segments: [SegmentInfo] = []
    /// Which segments have their index file (sealed).
    var sealed: Set<Int64> = []
    var lastTransaction: Int64 = 0
    var lastSync = Date.distantPast

    var droppedThrough: Int64 { meta?.droppedThrough ?? 0 }
    var totalBytes: Int64 { segments.reduce(0) { $0 + $1.bytes } }

    /// Brings this state up to date with the directory: the identity file, segments added or
    /// dropped by another process, and records appended since the last look. A writer passes
    /// `cutTornTail` to cut a torn last record before it appends.
    /// - Throws: ``DataStoreError/Code/corruptStore`` when the directory or its identity file is
    ///   no longer the store this instance opened (removed, or replaced by another store).
    mutating func refresh(_ files: LogFiles, cutTornTail: Bool, skipDamaged: Bool) throws {
        if let directory {
            try directory.check()
        } else {
            // A read-only log whose directory does not exist yet is empty.
            guard let handle = try DirectoryHandle(opening: files.directory) else { return }
            directory = handle
        }
        let identity = try FileIO.identity(files.meta)
        if identity != metaIdentity || identity == nil {
            let current = try LogMeta.read(files)
            if let known = meta?.storeIdentifier, current?.storeIdentifier != known {
                let now = current.map { "the identity of store \($0.storeIdentifier)" } ?? "no identity file"
                throw DataStoreError(.corruptStore,
                    "\(files.meta) now holds \(now), not that of store \(known) which this instance opened: the log was "
                    + "removed or replaced. Open the store again to use what is there now; nothing was changed.")
            }
            meta = current
            metaIdentity = identity
        }
        let numbers = try files.segmentNumbers()
        let present = Set(numbers)
        segments.removeAll { !present.contains($0.first) }
        sealed = sealed.intersection(present)
        for number in numbers where !segments.contains(where: { $0.first == number }) {
            // An index is a cache: one that is missing, damaged or does not fit its segment is
            // ignored and the segment read instead.
            if let data = try? FileIO.read(files.index(number)), let value = try? SnapshotJSON.parse(data),
               let info = try? SnapshotDecoder().decode(SegmentInfo.self, from: value),
               info.first == number, info.last >= info.first, info.bytes >= 0 {
                // A sealed segment was flushed whole before its index was written: a size that
                // differs now is damage, not a crash.
                let size = try FileIO.identity(files.segment(number))?.size ?? -1
                guard size == info.bytes else {
                    throw DataStoreError(.corruptStore,
                        "\(files.segment(number)) is \(size) bytes but was sealed at \(info.bytes). Restore the log from a backup; nothing was changed.")
                }
                segments.append(info)
                sealed.insert(number)
            } else {
                segments.append(SegmentInfo(first: number))
            }
        }
        segments.sort { $0.first < $1.first }
        // Read what was appended to segments without an index (normally only the last one).
        for index in segments.indices where !sealed.contains(segments[index].first) {
            let path = files.segment(segments[index].first)
            guard let size = try FileIO.identity(path)?.size, size != segments[index].bytes else { continue }
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
            if torn, index < segments.count - 1 {
                throw DataStoreError(.corruptStore,
                    "\(path) ends in a partial record at byte \(validEnd), but it is not the segment being written. "
                    + "Restore the log from a backup; nothing was changed.")
            }
            info.bytes = Int64(validEnd)
            segments[index] = info
            if torn, cutTornTail { try FileIO.truncate(path, to: Int64(validEnd)) }
        }
        // Segments follow each other without gaps.
        let whole = segments.filter { !$0.isEmpty }
        for (earlier, later) in zip(whole, whole.dropFirst()) where earlier.last + 1 != later.first && !skipDamaged {
            throw DataStoreError(.corruptStore,
                "\(files.directory): segment \(files.segment(later.first)) starts at transaction \(later.first), but the one "
                + "before it ends at \(earlier.last). Restore the log from a backup; nothing was changed.")
        }
        lastTransaction = max(lastTransaction, droppedThrough, segments.last(where: { !$0.isEmpty })?.last ?? 0)
    }

    /// Writes the index file of a segment that is full, so later opens need not read it.
    mutating func seal(_ index: Int, files: LogFiles) throws {
        let info = segments[index]
        try FileIO.replaceAtomically(files.index(info.first), with: SnapshotJSON.encode(try SnapshotEncoder().encode(info)))
        sealed.insert(info.first)
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
        guard var meta, transaction > meta.droppedThrough else { return }
        meta.droppedThrough = transaction
        try meta.write(files)
        self.meta = meta
        metaIdentity = try FileIO.identity(files.meta)
    }

    /// Removes the oldest segment's files.
    mutating func removeOldestSegment(files: LogFiles) throws {
        guard let oldest = segments.first else { return }
        try FileIO.remove(files.segment(oldest.first))
        try FileIO.remove(files.index(oldest.first))
        segments.removeFirst()
        sealed.remove(oldest.first)
    }

    /// Removes segments the identity file says were dropped (an interrupted drop).
    mutating func removeDroppedSegments(files: LogFiles) throws {
        while let oldest = segments.first, !oldest.isEmpty, oldest.last <= droppedThrough, segments.count > 1 || sealed.contains(oldest.first) {
            try removeOldestSegment(files: files)
        }
    }
}
