import Foundation
import StoreProtocol

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

/// The journal file: JSON lines, each framed as `<crc32 as 8 hex digits> <json>\n`, so that a
/// line cut short by a crash, or damaged, is detected.
enum Journal {
    /// Frames an entry as one line.
    static func line(for entry: JournalEntry) throws -> Data {
        let json = try SnapshotJSON.encode(try SnapshotEncoder().encode(entry))
        var line = Data(String(format: "%08x ", CRC32.checksum(json)).utf8)
        line.append(json)
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
    /// A last line that is cut short or fails its checksum is a torn tail (a write a crash cut
    /// short) and is left out; such a line followed by more lines is damage in the middle. A line
    /// whose checksum holds was written whole, so it is never torn: if it does not decode (written
    /// by a newer version, or by a writer with a bug) it is an error wherever it is, and nothing is cut.
    /// - Throws: ``DataStoreError/Code/corruptStore`` naming the file and byte offset.
    static func scan(_ data: Data, startingAt start: Int64, path: String) throws -> Scan {
        var scan = Scan(validLength: start, hasTornTail: false)
        var lineStart = data.startIndex
        while lineStart < data.endIndex {
            guard let newline = data[lineStart...].firstIndex(of: UInt8(ascii: "\n")) else {
                scan.hasTornTail = true   // no end of line: the last write was cut short
                return scan
            }
            let line = data[lineStart..<newline]
            let offset = start + Int64(lineStart - data.startIndex)
            switch parse(line) {
            case .entry(let entry):
                scan.entries.append((entry, start + Int64(newline + 1 - data.startIndex)))
                scan.validLength = start + Int64(newline + 1 - data.startIndex)
            case .undecodable(let reason):
                throw DataStoreError(.corruptStore,
                    "\(path) has a journal line at byte \(offset) that passes its checksum but does not decode: \(reason). "
                    + "It was written whole (by a newer version of this library, or damaged before its checksum was taken); "
                    + "open the store with the version that wrote it, or restore it from a backup. The files were left untouched.")
            case .badChecksum where newline + 1 == data.endIndex:
                scan.hasTornTail = true
                return scan
            case .badChecksum:
                throw DataStoreError(.corruptStore,
                    "\(path) is damaged at byte \(offset): a journal line in the middle fails its checksum. "
                    + "Restore the store from a backup; the files were left untouched.")
            }
            lineStart = newline + 1
        }
        return scan
    }

    /// What one line holds.
    enum Line {
        case entry(JournalEntry)
        /// Cut short or damaged: no checksum, or one that does not hold.
        case badChecksum
        /// Whole (the checksum holds) but not a journal entry this version reads.
        case undecodable(String)
    }

    static func parse(_ line: Data) -> Line {
        guard line.count > 9, line[line.startIndex + 8] == UInt8(ascii: " "),
              let expected = UInt32(String(decoding: line.prefix(8), as: UTF8.self), radix: 16) else { return .badChecksum }
        let json = line.dropFirst(9)
        guard CRC32.checksum(json) == expected else { return .badChecksum }
        do {
            return .entry(try SnapshotDecoder().decode(JournalEntry.self, from: SnapshotJSON.parse(json)))
        } catch {
            return .undecodable("\(error)")
        }
    }
}
