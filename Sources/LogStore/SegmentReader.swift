import Foundation
import StoreProtocol
import StoreFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a segment's records for a fetch, with `pread`, and only its first `end` bytes: those
/// this instance knows hold whole records (another process may be appending after them).
///
/// A range read reads the records' headers first, then the bytes of only the records whose
/// header times overlap the range: a segment holds many records, a short range one or two.
/// Headers are read through a window of ``windowSize`` bytes, so that small records (one per
/// save) cost one read per window, not one per record; after a record longer than the window,
/// only the next header is read.
struct SegmentReader {
    /// Bytes read at once while walking headers.
    static let windowSize = 64 << 10

    let path: String
    private let file: OpenFile
    /// Where the whole records this instance knows of end.
    let end: Int
    /// How many bytes this reader has read, for ``LogStore/Statistics``.
    private(set) var bytesRead = 0

    /// Opens the segment at `path`, which held `bytes` bytes of whole records when it was last read.
    /// - Throws: ``DataStoreError/Code/corruptStore`` (``LogState/shrunk(_:size:read:)``) for a
    ///   segment now shorter than that: cut or replaced; ``DataStoreError/Code/ioFailure`` for one
    ///   that is gone or that the system refuses to read.
    init(path: String, bytes: Int64) throws {
        guard let file = try OpenFile.open(path) else { throw FileIO.failure("open", path, errno: ENOENT) }
        let size = try file.size()
        guard size >= bytes else { throw LogState.shrunk(path, size: size, read: bytes) }
        self.path = path
        self.file = file
        end = Int(bytes)
    }

    /// Bytes `offset..<offset + count` of the segment, within `end`.
    /// - Throws: ``DataStoreError/Code/corruptStore`` when the file ends sooner (it was cut
    ///   after it was opened).
    private mutating func read(at offset: Int, count: Int) throws -> [UInt8] {
        // Not zero-filled first: a whole segment can be megabytes, and every byte is read into.
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = try file.read(at: Int64(offset), into: UnsafeMutableRawBufferPointer(buffer))
        }
        bytesRead += bytes.count
        guard bytes.count == count else { throw LogState.shrunk(path, size: Int64(offset + bytes.count), read: Int64(end)) }
        return bytes
    }

    /// The segment's first `end` bytes, for a read of every record.
    mutating func readAll() throws -> [UInt8] {
        try read(at: 0, count: end)
    }

    /// The records whose header times overlap `range`, from their headers alone (offsets in the
    /// file); `nil` when a header does not describe a record that ends by `end`. That is damage,
    /// which the caller judges and names by reading the whole segment (``SegmentScanner``): only
    /// a walk of every byte can tell where the next valid record starts.
    ///
    /// The times are not covered by a check here (that would mean reading every record): a record
    /// in range is checked by ``read(_:skipDamaged:_:)``.
    mutating func records(overlapping range: ClosedRange<Double>) throws -> [Frame.Record]? {
        var found: [Frame.Record] = []
        var window: [UInt8] = [], windowStart = 0
        var offset = 0, previousLength = 0
        while offset < end {
            guard end - offset >= Frame.headerSize else { return nil }
            if offset + Frame.headerSize > windowStart + window.count {
                // After a record longer than a window, the next one is likely long too.
                let count = previousLength > Self.windowSize ? Frame.headerSize : min(Self.windowSize, end - offset)
                window = try read(at: offset, count: count)
                windowStart = offset
            }
            let record: Frame.Record? = window.withUnsafeBytes { bytes in
                let local = offset - windowStart
                let length = Int(Frame.readUInt32(bytes, local))
                guard length <= Frame.maximumPayload, end - offset - Frame.headerSize >= length else { return nil }
                return Frame.Record(offset: offset, length: Frame.headerSize + length, earliest: Frame.readDouble(bytes, local + 8),
                                    latest: Frame.readDouble(bytes, local + 16),
                                    payloadRange: (offset + Frame.headerSize)..<(offset + Frame.headerSize + length))
            }
            guard let record else { return nil }
            if record.latest >= range.lowerBound, record.earliest <= range.upperBound { found.append(record) }
            offset += record.length
            previousLength = record.length
        }
        return found
    }

    /// Calls `body` with each of `records` (from ``records(overlapping:)``, ascending) and its
    /// payload bytes, once its checksum holds. Records next to each other are read at once.
    /// - Throws: ``DataStoreError/Code/corruptStore`` for a record whose checksum does not hold,
    ///   unless `skipDamaged` (then it is left out).
    mutating func read(_ records: [Frame.Record], skipDamaged: Bool, _ body: (Frame.Record, UnsafeRawBufferPointer) throws -> Void) throws {
        var first = 0
        while first < records.count {
            var last = first
            while last + 1 < records.count, records[last + 1].offset == records[last].offset + records[last].length { last += 1 }
            let start = records[first].offset
            let bytes = try read(at: start, count: records[last].offset + records[last].length - start)
            try bytes.withUnsafeBytes { bytes in
                for record in records[first...last] {
                    let local = record.offset - start
                    guard Frame.checksumHolds(bytes, offset: local, end: local + record.length) else {
                        if skipDamaged { continue }
                        throw Self.checksumMismatch(path, at: record.offset)
                    }
                    try body(record, UnsafeRawBufferPointer(rebasing: bytes[(local + Frame.headerSize)..<(local + record.length)]))
                }
            }
            first = last + 1
        }
    }

    /// The error for a record in range whose checksum does not hold.
    static func checksumMismatch(_ path: String, at offset: Int) -> DataStoreError {
        DataStoreError(.corruptStore,
            "\(path) is damaged at byte \(offset) (a checksum mismatch). Restore the log from a backup, "
            + "or open it with skipsDamagedRecords to read around the damage; nothing was changed.")
    }
}
