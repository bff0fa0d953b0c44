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
/// Headers are read through a window of `windowSize` bytes, so that small records (one per
/// save) cost one read per window, not one per record; where records are long (a batch of rows
/// per save), a window would hold few headers, so each header is read alone.
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
    /// - Throws: `DataStoreError/Code/corruptStore` (`LogState/shrunk(_:size:read:)`) for a
    ///   segment now shorter than that: cut or replaced; `DataStoreError/Code/ioFailure` for one
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
    /// - Throws: `DataStoreError/Code/corruptStore` when the file ends sooner (it was cut
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

    /// A record in range, and its bytes when the window that held its header held all of it.
    struct Found {
        var record: Frame.Record
        var bytes: ArraySlice<UInt8>?
    }

    /// The records whose header times overlap `range`, from their headers alone (offsets in the
    /// file); `expected` is about how many records the segment holds, which says how long they
    /// are. `nil` when a header does not describe a record that ends by `end`. That is damage,
    /// which the caller judges and names by reading the whole segment (`SegmentScanner`): only
    /// a walk of every byte can tell where the next valid record starts.
    ///
    /// The times are not covered by a check here (that would mean reading every record): a record
    /// in range is checked by `read(_:skipDamaged:_:)`.
    mutating func records(overlapping range: ClosedRange<Double>, expected: Int) throws -> [Found]? {
        var found: [Found] = []
        var window: [UInt8] = [], windowStart = 0
        var offset = 0
        // Copying a window costs about as much as a few reads of a header alone.
        let headersAlone = end / max(1, expected) >= Self.windowSize / 8
        while offset < end {
            guard end - offset >= Frame.headerSize else { return nil }
            if offset + Frame.headerSize > windowStart + window.count {
                window = try read(at: offset, count: headersAlone ? Frame.headerSize : min(Self.windowSize, end - offset))
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
            if record.latest >= range.lowerBound, record.earliest <= range.upperBound {
                // A slice shares the window's storage: small records in range are not read twice.
                let local = offset - windowStart
                found.append(Found(record: record, bytes: local + record.length <= window.count ? window[local..<(local + record.length)] : nil))
            }
            offset += record.length
        }
        return found
    }

    /// Calls `body` with each of `found` (from `records(overlapping:expected:)`, ascending) and
    /// its payload bytes, once its checksum holds. Records not read yet are read, those next to
    /// each other at once.
    /// - Throws: `DataStoreError/Code/corruptStore` for a record whose checksum does not hold,
    ///   unless `skipDamaged` (then it is left out).
    mutating func read(_ found: [Found], skipDamaged: Bool, _ body: (Frame.Record, UnsafeRawBufferPointer) throws -> Void) throws {
        func deliver(_ record: Frame.Record, _ bytes: ArraySlice<UInt8>) throws {
            try bytes.withUnsafeBytes { bytes in
                guard Frame.checksumHolds(bytes, offset: 0, end: record.length) else {
                    if skipDamaged { return }
                    throw Self.checksumMismatch(path, at: record.offset)
                }
                try body(record, UnsafeRawBufferPointer(rebasing: bytes[Frame.headerSize...]))
            }
        }
        var first = 0
        while first < found.count {
            if let bytes = found[first].bytes {
                try deliver(found[first].record, bytes)
                first += 1
                continue
            }
            var last = first
            while last + 1 < found.count, found[last + 1].bytes == nil,
                  found[last + 1].record.offset == found[last].record.offset + found[last].record.length { last += 1 }
            let start = found[first].record.offset
            let bytes = try read(at: start, count: found[last].record.offset + found[last].record.length - start)
            for item in found[first...last] {
                let local = item.record.offset - start
                try deliver(item.record, bytes[local..<(local + item.record.length)])
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
