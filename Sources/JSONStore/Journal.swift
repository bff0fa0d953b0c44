import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreFiles

/// One journal entry: what one save (or one history deletion) did, enough to replay it.
struct JournalEntry: Codable {
    /// Consecutive from the base file's `journalSequence + 1`.
    var sequence: Int64
    /// The save's history transaction.
    var transaction: HistoryRecord?
    /// Rows written by the save (attribute values, keyed by entity).
    var upserts: [Row]?
    /// Rows removed by the save.
    var deletes: [PersistentIdentifier]?
    /// History deleted by retention or `deleteHistory`: transactions up to this number (the new
    /// history horizon, stored as `historyExpiredThrough`)…
    var expiredThrough: Int64?
    /// …and these transactions.
    var deletedTransactions: [Int64]?
    /// The store was erased.
    var erase: Bool?

    struct Row: Codable {
        var entity: String
        var values: [String: SnapshotValue]
    }

    /// The keys the journal has always written: the horizon keeps its first release's name.
    enum CodingKeys: String, CodingKey {
        case sequence, transaction, upserts, deletes, deletedTransactions, erase
        case expiredThrough = "historyExpiredThrough"
    }
}

/// An entry as one `SnapshotValue`, converted by hand: the value its `Codable` conformance
/// gives through `SnapshotEncoder` (so lines written either way are the same), with the rows'
/// values placed as they are rather than rebuilt by the coder.
extension JournalEntry {
    var snapshotValue: SnapshotValue {
        var object: [String: SnapshotValue] = ["sequence": .int(sequence)]
        if let transaction { object["transaction"] = transaction.snapshotValue }
        if let upserts {
            object["upserts"] = .array(upserts.map { .object(["entity": .string($0.entity), "values": .object($0.values)]) })
        }
        if let deletes {
            object["deletes"] = .array(deletes.map { .object(["entityName": .string($0.entityName), "primaryKey": $0.primaryKey]) })
        }
        if let expiredThrough { object["historyExpiredThrough"] = .int(expiredThrough) }
        if let deletedTransactions { object["deletedTransactions"] = .array(deletedTransactions.map(SnapshotValue.int)) }
        if let erase { object["erase"] = .bool(erase) }
        return .object(object)
    }

    init(snapshotValue value: SnapshotValue) throws {
        let fields = try SnapshotFields(value, of: "a journal entry")
        sequence = try fields.decode("sequence", as: Int64.self)
        transaction = try fields.objectIfPresent("transaction").map { try HistoryRecord(snapshotValue: .object($0)) }
        upserts = try fields.arrayIfPresent("upserts")?.map { row in
            let rowFields = try SnapshotFields(row, of: "a journal row")
            guard let values = try rowFields.objectIfPresent("values") else { throw rowFields.error("values", "is missing") }
            return Row(entity: try rowFields.decode("entity", as: String.self), values: values)
        }
        deletes = try fields.arrayIfPresent("deletes")?.map { identifier in
            let idFields = try SnapshotFields(identifier, of: "a deleted identifier")
            return PersistentIdentifier(entityName: try idFields.decode("entityName", as: String.self),
                                        primaryKey: try idFields.value("primaryKey"))
        }
        expiredThrough = try fields.decodeIfPresent("historyExpiredThrough", as: Int64.self)
        deletedTransactions = try fields.decodeIfPresent("deletedTransactions", as: [Int64].self)
        erase = try fields.decodeIfPresent("erase", as: Bool.self)
    }
}

/// The journal file: JSON lines, each framed as `<crc32 as 8 hex digits> <length> <json>\n`,
/// where the checksum covers `<length> <json>` and the length counts the JSON's bytes.
///
/// The checksum tells a damaged or cut line. A line cut short by a crash or a power loss ends
/// before its newline or holds blocks never written (zeros), at the end of the file; a bad line
/// written whole (newline present, no zeros), or one that runs past its declared length (merged
/// or grown), is damage, so that damage is never cut away as if it were a torn write. Lines of version 1 stores (`<crc32> <json>`, the checksum over the JSON) still read.
enum Journal {
    /// Frames an entry as one line.
    static func line(for entry: JournalEntry) throws -> Data {
        let json = try SnapshotJSON.encode(entry.snapshotValue)
        var body = Data("\(json.count) ".utf8)
        body.append(json)
        var line = Data(String(format: "%08x ", CRC32.checksum(body)).utf8)
        line.append(body)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// What reading the journal found.
    struct Scan {
        var entries: [(entry: JournalEntry, end: Int64)] = []
        /// Where valid lines end; bytes past it (a torn tail) are to be cut before appending.
        var validLength: Int64
        var hasTornTail: Bool
    }

    /// Reads whole, valid lines from `data` (which starts at file offset `start`).
    ///
    /// Only the last line may be bad, and only as a write cut short leaves it (see
    /// `isTornAppend(_:declaredLength:atJournalStart:)`): that is a torn tail, left out. Any other bad line, and a line whose
    /// checksum holds but whose entry does not decode, is damage.
    /// - Throws: `DataStoreError/Code/corruptStore` naming the file and byte offset.
    static func scan(_ data: Data, startingAt start: Int64, path: String) throws -> Scan {
        var scan = Scan(validLength: start, hasTornTail: false)
        var lineStart = data.startIndex
        while lineStart < data.endIndex {
            let newline = data[lineStart...].firstIndex(of: UInt8(ascii: "\n"))
            let lineEnd = newline.map { $0 + 1 } ?? data.endIndex
            let offset = start + Int64(lineStart - data.startIndex)
            switch frame(data[lineStart..<(newline ?? data.endIndex)]) {
            case .valid(let json):
                guard newline != nil else {   // whole but for its newline: the write was cut short
                    scan.hasTornTail = true
                    return scan
                }
                let entry: JournalEntry
                do {
                    entry = try JournalEntry(snapshotValue: SnapshotJSON.parse(json))
                } catch {
                    throw DataStoreError(.corruptStore,
                        "\(path) has a journal line at byte \(offset) whose checksum holds but that does not decode: \(error). "
                        + "It was written by another version or damaged in a way the checksum missed. Restore the store from "
                        + "a backup; the files were left untouched.")
                }
                scan.entries.append((entry, start + Int64(lineEnd - data.startIndex)))
                scan.validLength = start + Int64(lineEnd - data.startIndex)
            case .bad(let declaredLength):
                let followedByALine = lineEnd < data.endIndex && containsWholeLine(data[lineEnd...])
                let atJournalStart = lineStart == data.startIndex && start == 0
                if !followedByALine, isTornAppend(data[lineStart...], declaredLength: declaredLength, atJournalStart: atJournalStart) {
                    scan.hasTornTail = true
                    return scan
                }
                let why = followedByALine ? "whole lines follow it" : "it was written whole, newline and all"
                throw DataStoreError(.corruptStore,
                    "\(path) is damaged at byte \(offset): a journal line fails its checksum or length, and it is not a "
                    + "write cut short at the end of the file (\(why)). Restore the store from a backup; the files were left untouched.")
            }
            lineStart = lineEnd
        }
        return scan
    }

    private enum Frame {
        case valid(json: Data.SubSequence)
        /// The frame fails its checksum or shape; its declared total length, newline included,
        /// when its header can be read.
        case bad(declaredLength: Int?)
    }

    /// Checks one line (without its newline).
    private static func frame(_ line: Data.SubSequence) -> Frame {
        guard line.count > 9, line[line.startIndex + 8] == UInt8(ascii: " "),
              let expected = UInt32(String(decoding: line.prefix(8), as: UTF8.self), radix: 16) else { return .bad(declaredLength: nil) }
        let body = line.dropFirst(9)
        guard let first = body.first, first != UInt8(ascii: "{") else {
            // Version 1: `<crc32> <json>`, the checksum over the JSON.
            return CRC32.checksum(body) == expected ? .valid(json: body) : .bad(declaredLength: nil)
        }
        guard let space = body.prefix(20).firstIndex(of: UInt8(ascii: " ")),
              let length = Int(String(decoding: body[body.startIndex..<space], as: UTF8.self)), length >= 0 else {
            return .bad(declaredLength: nil)
        }
        let declared = 9 + (space - body.startIndex) + 1 + length + 1
        guard CRC32.checksum(body) == expected, body.endIndex - (space + 1) == length else { return .bad(declaredLength: declared) }
        return .valid(json: body[(space + 1)...])
    }

    /// Whether the bad bytes from a line's start to the end of the journal (with no whole line
    /// among them) can be an append that a crash or a power loss cut short, which never held an
    /// acknowledged save: it was not flushed.
    ///
    /// A write cut short ends before its newline, or (power lost before its flush) has blocks
    /// the disk never wrote, which read as zeros, wherever they lie: a sector is written whole
    /// or not at all, and no journal line holds a NUL byte (JSON escapes it). Bytes that end in
    /// their newline and hold no NUL were written whole: a bad line there was damaged after it was
    /// written (a changed length, checksum or byte), and cutting it would cut an acknowledged
    /// save, so it is damage. So is a line that runs past its declared length (merged with
    /// another, or grown). At the start of a journal, where they would be all of it, the bytes
    /// must also begin as a line does (`<8 hex digits> `) or with a block never written: a
    /// journal whose only bytes are something else was replaced.
    private static func isTornAppend(_ bytes: Data.SubSequence, declaredLength: Int?, atJournalStart: Bool) -> Bool {
        if let declaredLength, bytes.count > declaredLength { return false }
        let hasUnwrittenBlock = bytes.contains(0)
        if !hasUnwrittenBlock, bytes.last == UInt8(ascii: "\n") { return false }
        guard atJournalStart else { return true }
        if bytes.first == 0 { return true }
        for (offset, byte) in bytes.prefix(9).enumerated() {
            let fits = offset == 8 ? byte == UInt8(ascii: " ")
                : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            if !fits { return false }
        }
        return true
    }

    /// Whether `bytes` hold a line that was written whole: one that passes its frame check, or
    /// whose header is readable and whose length matches it (its checksum may fail). Garbage
    /// from a power loss can hold newlines, but what follows one is hardly ever such a line.
    private static func containsWholeLine(_ bytes: Data.SubSequence) -> Bool {
        var lineStart = bytes.startIndex
        while let newline = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
            switch frame(bytes[lineStart..<newline]) {
            case .valid: return true
            case .bad(let declared?) where declared == newline + 1 - lineStart: return true
            case .bad: break
            }
            lineStart = newline + 1
        }
        return false
    }
}
