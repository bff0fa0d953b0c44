import Foundation
import StoreProtocol
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
    /// History deleted by retention or `deleteHistory`: transactions up to this number…
    var historyExpiredThrough: Int64?
    /// …and these transactions.
    var deletedTransactions: [Int64]?
    /// The store was erased.
    var erase: Bool?

    struct Row: Codable {
        var entity: String
        var values: [String: SnapshotValue]
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
        if let historyExpiredThrough { object["historyExpiredThrough"] = .int(historyExpiredThrough) }
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
        historyExpiredThrough = try fields.decodeIfPresent("historyExpiredThrough", as: Int64.self)
        deletedTransactions = try fields.decodeIfPresent("deletedTransactions", as: [Int64].self)
        erase = try fields.decodeIfPresent("erase", as: Bool.self)
    }
}

/// The journal file: JSON lines, each framed as `<crc32 as 8 hex digits> <length> <json>\n`,
/// where the checksum covers `<length> <json>` and the length counts the JSON's bytes.
///
/// The checksum tells a damaged or cut line; the length tells a line cut short by a crash (it
/// ends before its declared length, at the end of the file) from damage that merged or grew
/// lines (it runs past its declared length), so that damage is never cut away as if it were a
/// torn write. Lines of version 1 stores (`<crc32> <json>`, the checksum over the JSON) still read.
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
    /// `couldBeTorn(_:)`): that is a torn tail, left out. Any other bad line, and a line whose
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
                let afterALine = lineStart > data.startIndex || start > 0
                if !followedByALine, couldBeTorn(data[lineStart...], declaredLength: declaredLength, afterALine: afterALine,
                                                 isLastLine: lineEnd == data.endIndex) {
                    scan.hasTornTail = true
                    return scan
                }
                throw DataStoreError(.corruptStore,
                    "\(path) is damaged at byte \(offset): a journal line fails its checksum or length, and it is not a "
                    + "write cut short at the end of the file. Restore the store from a backup; the files were left untouched.")
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

    /// Whether the bad bytes from a line's start to the end of the journal (with no valid line
    /// among them) can be one write that a crash cut short and a power loss may have garbled,
    /// newlines included.
    ///
    /// With a readable header, they can when they end within the line's declared length: a line
    /// that runs past its length was merged with another or grown by damage. A power loss can
    /// garble the header of a short last line too; then they can if they follow a valid line.
    /// At the start of a journal, where they would be all of it, only bytes without a newline
    /// can be, and only if they begin as a line does (`<8 hex digits> `) or are zeros, what an
    /// unwritten block reads as: a journal whose only bytes are bad was damaged or replaced.
    private static func couldBeTorn(_ bytes: Data.SubSequence, declaredLength: Int?, afterALine: Bool, isLastLine: Bool) -> Bool {
        if let declaredLength { return bytes.count <= declaredLength }
        if afterALine { return true }
        guard isLastLine else { return false }
        if bytes.allSatisfy({ $0 == 0 }) { return true }
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
