import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreFiles

/// What one transaction appends: its history fields and its rows.
///
/// Written and read as JSON bytes by hand (`json()`, `init(json:)`), without a `SnapshotValue`
/// of the whole record or `Codable`: a record holds thousands of rows, and building and walking
/// the generic tree cost more than the bytes. The shape is the one `Codable` would give (`nil`
/// author left out), keys sorted, exactly as `SnapshotJSON` writes `snapshotValue`.
struct LogPayload {
    var transactionNumber: Int64
    var author: String?
    var timestamp: Date
    var bundleIdentifier: String
    var processIdentifier: String
    var rows: [Row]

    struct Row {
        var entity: String
        var values: [String: SnapshotValue]
    }

    var snapshotValue: SnapshotValue {
        var object: [String: SnapshotValue] = [
            "transactionNumber": .int(transactionNumber), "timestamp": .date(timestamp),
            "bundleIdentifier": .string(bundleIdentifier), "processIdentifier": .string(processIdentifier),
            "rows": .array(rows.map { .object(["entity": .string($0.entity), "values": .object($0.values)]) }),
        ]
        if let author { object["author"] = .string(author) }
        return .object(object)
    }

    /// The payload as JSON: the bytes `SnapshotJSON.encode(snapshotValue)` gives, written
    /// without building that value (keys in sorted order, the rows' values written at the
    /// depth they have in the whole record, so that the nesting limit is the same).
    /// - Throws: `DataStoreError/Code/unsupportedValue` when a row's value nests too deep.
    func json() throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + rows.count * 160)
        out.append(UInt8(ascii: "{"))
        if let author {
            out.append(contentsOf: #""author":"#.utf8)
            SnapshotJSON.writeString(author, into: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""bundleIdentifier":"#.utf8)
        SnapshotJSON.writeString(bundleIdentifier, into: &out)
        out.append(contentsOf: #","processIdentifier":"#.utf8)
        SnapshotJSON.writeString(processIdentifier, into: &out)
        out.append(contentsOf: #","rows":["#.utf8)
        // Rows of one entity have the same keys: sorted and encoded once, not per row.
        var keys = SnapshotJSON.KeyOrder()
        for (index, row) in rows.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"entity":"#.utf8)
            SnapshotJSON.writeString(row.entity, into: &out)
            out.append(contentsOf: #","values":"#.utf8)
            // The payload is depth 0, its rows array 1, a row 2, the row's values 3.
            try SnapshotJSON.write(row.values, keys: &keys, depth: 3, at: [".rows", "[\(index)]", ".values"], into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"],"timestamp":"#.utf8)
        try SnapshotJSON.write(.date(timestamp), depth: 1, at: [".timestamp"], into: &out)
        out.append(contentsOf: #","transactionNumber":"#.utf8)
        out.append(contentsOf: String(transactionNumber).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    struct Shape: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

// In an extension, so that the memberwise initializer stays.
extension LogPayload {
    /// Reads a payload from its JSON, accepting and refusing exactly what
    /// `init(SnapshotJSON.parse(bytes))` does, without a `SnapshotValue` of the whole record:
    /// the record's own object and its rows are walked as they are read, each row's values go
    /// straight into the row. A record of another shape (a `$` key in the framing, say) is read
    /// the general way, so that it is judged as before.
    /// - Throws: `SnapshotJSON/SyntaxError` for bytes that are not JSON; `Shape` for JSON that is
    ///   not a payload.
    init(json bytes: UnsafeRawBufferPointer) throws {
        self = try bytes.withMemoryRebound(to: UInt8.self) { bytes in
            var parser = SnapshotJSON.Parser(bytes: bytes)
            if let payload = try Self.readFraming(&parser) {
                try parser.end()
                return try payload.checked()
            }
            let value = try parser.value(depth: 0)
            try parser.end()
            return try LogPayload(value)
        }
    }

    /// A payload's fields as read, checked only once the whole record has been read (as the
    /// general reader checks them), so that a syntax error after a field of the wrong kind is
    /// reported as such.
    private struct Fields {
        var transactionNumber: SnapshotValue?
        var timestamp: SnapshotValue?
        var bundleIdentifier: SnapshotValue?
        var processIdentifier: SnapshotValue?
        var author: SnapshotValue?
        /// The rows, when `rows` was an array of rows of plain framing (`nil` for a row that
        /// lacked its entity or values or had them of the wrong kind).
        var rows: [Row?]?
        /// `rows` when it was something else.
        var otherRows: SnapshotValue?

        func checked() throws -> LogPayload {
            guard case .int(let number)? = transactionNumber else { throw Shape("no transactionNumber") }
            guard case .date(let timestamp)? = timestamp else { throw Shape("no timestamp") }
            guard case .string(let bundle)? = bundleIdentifier else { throw Shape("no bundleIdentifier") }
            guard case .string(let process)? = processIdentifier else { throw Shape("no processIdentifier") }
            guard let rows else { throw Shape("no rows") }
            let author: String?
            switch self.author {
            case nil, .null?: author = nil
            case .string(let name)?: author = name
            default: throw Shape("an author that is not a string")
            }
            return LogPayload(transactionNumber: number, author: author, timestamp: timestamp, bundleIdentifier: bundle,
                              processIdentifier: process, rows: try rows.map { row in
                                  guard let row else { throw Shape("a row without entity and values") }
                                  return row
                              })
        }
    }

    /// Reads the payload's framing; `nil`, with the parser back at the start, when it is not
    /// plain (the caller reads it the general way).
    private static func readFraming(_ parser: inout SnapshotJSON.Parser) throws -> Fields? {
        var fields = Fields()
        let plain = try parser.plainObject(depth: 0) { parser, key in
            switch key {
            case "rows":
                var rows: [Row?] = []
                let isArray = try parser.array(depth: 1) { parser in
                    rows.append(try readRow(&parser))
                }
                if isArray {
                    fields.rows = rows
                    fields.otherRows = nil
                } else {
                    fields.rows = nil
                    fields.otherRows = try parser.value(depth: 1)
                }
            case "transactionNumber": fields.transactionNumber = try parser.value(depth: 1)
            case "timestamp": fields.timestamp = try parser.value(depth: 1)
            case "bundleIdentifier": fields.bundleIdentifier = try parser.value(depth: 1)
            case "processIdentifier": fields.processIdentifier = try parser.value(depth: 1)
            case "author": fields.author = try parser.value(depth: 1)
            default: _ = try parser.value(depth: 1)
            }
        }
        return plain ? fields : nil
    }

    /// One element of `rows` (at depth 2); `nil` when it is not a row.
    private static func readRow(_ parser: inout SnapshotJSON.Parser) throws -> Row? {
        var entity: SnapshotValue?, values: SnapshotValue?
        let start = parser.position
        if try parser.plainObject(depth: 2, { parser, key in
            switch key {
            case "entity": entity = try parser.value(depth: 3)
            case "values": values = try parser.value(depth: 3)
            default: _ = try parser.value(depth: 3)
            }
        }) {
            guard case .string(let name)? = entity, case .object(let rowValues)? = values else { return nil }
            return Row(entity: name, values: rowValues)
        }
        parser.position = start
        guard case .object(let fields) = try parser.value(depth: 2), case .string(let name)? = fields["entity"],
              case .object(let rowValues)? = fields["values"] else { return nil }
        return Row(entity: name, values: rowValues)
    }

    /// - Throws: `Shape` naming the first field that is missing or of the wrong kind.
    init(_ value: SnapshotValue) throws {
        guard case .object(let object) = value else { throw Shape("the payload is not an object") }
        guard case .int(let number)? = object["transactionNumber"] else { throw Shape("no transactionNumber") }
        guard case .date(let timestamp)? = object["timestamp"] else { throw Shape("no timestamp") }
        guard case .string(let bundle)? = object["bundleIdentifier"] else { throw Shape("no bundleIdentifier") }
        guard case .string(let process)? = object["processIdentifier"] else { throw Shape("no processIdentifier") }
        guard case .array(let rows)? = object["rows"] else { throw Shape("no rows") }
        switch object["author"] {
        case nil, .null?: author = nil
        case .string(let name)?: author = name
        default: throw Shape("an author that is not a string")
        }
        self.rows = try rows.map { row in
            guard case .object(let fields) = row, case .string(let entity)? = fields["entity"],
                  case .object(let values)? = fields["values"] else { throw Shape("a row without entity and values") }
            return Row(entity: entity, values: values)
        }
        transactionNumber = number
        self.timestamp = timestamp
        bundleIdentifier = bundle
        processIdentifier = process
    }
}

/// A record on disk: a 24-byte header, then the payload (JSON, as `SnapshotJSON` writes it).
///
/// ```
/// bytes 0..<4    payload length, UInt32 little-endian
/// bytes 4..<8    CRC-32 of bytes 8..<(24 + length), UInt32 little-endian
/// bytes 8..<16   earliest record time, Float64 seconds since 1970, little-endian
/// bytes 16..<24  latest record time, same
/// bytes 24...    payload
/// ```
/// The times let a range read skip a record without decoding it.
enum Frame {
    static let headerSize = 24
    /// A length above this is damage, not data (it also bounds what a damaged header can make us allocate).
    static let maximumPayload = 1 << 30

    /// The record for `payload`, called before anything of a save is written.
    /// - Throws: `DataStoreError/Code/unsupportedValue` when a value cannot be stored so that it
    ///   reads back exactly (nesting too deep); `DataStoreError/Code/unsupportedFeature` when the
    ///   payload is longer than `limit` (`maximumPayload`: a reader would take such a record for
    ///   damage and a writer cut it off as a torn write). Either way the save fails, nothing is written.
    static func encode(_ payload: LogPayload, earliest: Double, latest: Double, limit: Int = maximumPayload) throws -> Data {
        let json = try payload.json()
        guard json.count <= limit else {
            throw DataStoreError.unsupportedFeature(
                "A log record holds at most \(limit) bytes of JSON; this save's \(payload.rows.count) row(s) make \(json.count). "
                + "Save them in smaller batches. Nothing was written.")
        }
        var frame = Data(capacity: headerSize + json.count)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { frame.append(contentsOf: $0) } }
        append(UInt32(json.count))
        append(UInt32(0))   // checksum, filled below
        append(earliest.bitPattern)
        append(latest.bitPattern)
        frame.append(contentsOf: json)
        let checksum = CRC32.checksum(frame[8...])
        withUnsafeBytes(of: checksum.littleEndian) { frame.replaceSubrange(4..<8, with: $0) }
        return frame
    }

    /// One record found while walking a segment.
    struct Record {
        var offset: Int
        var length: Int
        var earliest: Double
        var latest: Double
        var payloadRange: Range<Int>
    }

    /// What walking a segment's bytes found.
    enum Step {
        case record(Record)
        /// No whole, valid record starts here: fewer bytes than a header, a length past the end
        /// of the bytes or beyond `maximumPayload`, or a checksum mismatch. Whether that is a
        /// torn tail or damage is decided by what follows (`nextValidRecord(_:after:)`), never
        /// by the header alone: a damaged length can point anywhere.
        case bad(reason: String)
    }

    static func readUInt32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    static func readDouble(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    /// Reads the record at `offset`, checking its checksum when `verify` is set.
    static func step(_ bytes: UnsafeRawBufferPointer, at offset: Int, verify: Bool) -> Step {
        guard bytes.count - offset >= headerSize else { return .bad(reason: "\(bytes.count - offset) bytes, less than a record header") }
        let length = Int(readUInt32(bytes, offset))
        guard length <= maximumPayload else { return .bad(reason: "a length of \(length) bytes") }
        guard bytes.count - offset - headerSize >= length else {
            return .bad(reason: "a length of \(length) bytes, past the end of the file")
        }
        let end = offset + headerSize + length
        if verify, !checksumHolds(bytes, offset: offset, end: end) { return .bad(reason: "a checksum mismatch") }
        return .record(Record(offset: offset, length: headerSize + length, earliest: readDouble(bytes, offset + 8),
                              latest: readDouble(bytes, offset + 16), payloadRange: (offset + headerSize)..<end))
    }

    /// The offset of the first whole record with a valid checksum that starts after `offset`,
    /// looking at every byte: the header at `offset` is not trusted to say where the next record
    /// starts. `nil` means the bytes from `offset` on hold no record, so a bad record there is a
    /// torn tail (a write a crash cut short) and not damage in front of acknowledged records.
    ///
    /// A payload is JSON, which holds no NUL byte, so a record cannot hide inside another's
    /// payload; a candidate must start with `{` and pass its CRC-32, so bytes that only look like
    /// a header are not taken for one.
    static func nextValidRecord(_ bytes: UnsafeRawBufferPointer, after offset: Int) -> Int? {
        var candidate = offset + 1
        while bytes.count - candidate >= headerSize + 2 {
            let length = Int(readUInt32(bytes, candidate))
            if length >= 2, length <= bytes.count - candidate - headerSize,
               bytes[candidate + headerSize] == UInt8(ascii: "{"),
               checksumHolds(bytes, offset: candidate, end: candidate + headerSize + length) {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    /// Whether the bad record at `offset` is the last one, written whole, with only its length
    /// field changed: its checksum holds over its header's times and every byte to the end of
    /// `bytes`, which hold one JSON object. A write cut short cannot pass that check (its bytes
    /// stop before its end, or hold blocks never written).
    static func isWholeWithDamagedLength(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard bytes.count - offset >= headerSize + 2, bytes[offset + headerSize] == UInt8(ascii: "{"),
              bytes[bytes.count - 1] == UInt8(ascii: "}") else { return false }
        return checksumHolds(bytes, offset: offset, end: bytes.count)
    }

    /// Whether the record at `offset..<end` has the checksum its header says.
    static func checksumHolds(_ bytes: UnsafeRawBufferPointer, offset: Int, end: Int) -> Bool {
        CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<end])) == readUInt32(bytes, offset + 4)
    }

    /// The record's payload.
    /// - Throws: `DataStoreError/Code/corruptStore` when a record whose checksum holds does not
    ///   decode (written by something else, or damage the checksum missed).
    static func decode(_ bytes: UnsafeRawBufferPointer, _ record: Record, path: String) throws -> LogPayload {
        try decode(payload: UnsafeRawBufferPointer(rebasing: bytes[record.payloadRange]), at: record.offset, path: path)
    }

    /// The payload in `payload`, the bytes after the header of the record at byte `offset` of
    /// the segment (which the error names): for a reader that holds only that record's bytes.
    /// - Throws: `DataStoreError/Code/corruptStore`, as `decode(_:_:path:)`.
    static func decode(payload: UnsafeRawBufferPointer, at offset: Int, path: String) throws -> LogPayload {
        do {
            return try LogPayload(json: payload)
        } catch {
            throw DataStoreError(.corruptStore, "\(path) has a record at byte \(offset) that does not decode: \(error). "
                + "Restore the log from a backup; nothing was changed.")
        }
    }
}
