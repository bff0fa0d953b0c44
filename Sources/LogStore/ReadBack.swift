import Foundation
import StoreProtocol

/// The check that a record reads back as it was written, made before a save is appended, for
/// the values JSON may not carry: numbers that are not finite, keys that begin with `$` (the
/// encoder's tags), and deep nesting. Other payloads (nearly all) are not re-read:
/// parsing a record costs more than encoding it.
///
/// It does not depend on which of these the encoder stores exactly or refuses: a value it
/// stores exactly passes, one it alters or cannot read is refused before anything is written,
/// instead of being acknowledged and then unreadable (a record the reader refuses makes the
/// whole log refuse to open).
enum ReadBack {
    /// Nesting beyond this is unusual enough to re-read (the reader has a limit of its own).
    static let usualDepth = 64

    /// Whether `value` holds anything the JSON form may not carry exactly.
    static func needsCheck(_ value: SnapshotValue, depth: Int = 0) -> Bool {
        guard depth <= usualDepth else { return true }
        switch value {
        case .double(let number): return !number.isFinite
        case .decimal(let number): return number.isNaN
        case .array(let elements): return elements.contains { needsCheck($0, depth: depth + 1) }
        case .object(let object): return object.contains { $0.key.hasPrefix("$") || needsCheck($0.value, depth: depth + 1) }
        default: return false
        }
    }

    /// Where `read` differs from `written`, as `path: written, read back as read`; `nil` when the
    /// same. Numbers compare by bit pattern (any NaN matches a NaN). Dates compare by the
    /// seconds since 1970 the record holds, so that this check refuses only what the JSON form
    /// changes beyond that.
    static func difference(_ written: SnapshotValue, _ read: SnapshotValue, at path: String = "") -> String? {
        switch (written, read) {
        case let (.double(a), .double(b)) where a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN):
            return nil
        case let (.date(a), .date(b)) where a.timeIntervalSince1970 == b.timeIntervalSince1970:
            return nil
        case let (.array(a), .array(b)) where a.count == b.count:
            for (index, (x, y)) in zip(a, b).enumerated() {
                if let found = difference(x, y, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case let (.object(a), .object(b)) where Set(a.keys) == Set(b.keys):
            for key in a.keys.sorted() {
                if let found = difference(a[key]!, b[key]!, at: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
            return nil
        case (.double, _), (.date, _), (.array, _), (.object, _):
            break
        default:
            if written == read { return nil }
        }
        return "\(path.isEmpty ? "the payload" : path) is \(written), read back as \(read)"
    }

    /// Throws unless `json`, the encoding of `value`, reads back as `value`.
    /// - Throws: ``DataStoreError/Code/unsupportedFeature`` naming the value and what it became.
    static func check(_ json: Data, encodes value: SnapshotValue, transaction: Int64) throws {
        guard needsCheck(value) else { return }
        let problem: String?
        do {
            problem = difference(value, try SnapshotJSON.parse(json))
        } catch {
            problem = "the record would not read back (\(error))"
        }
        if let problem {
            throw DataStoreError.unsupportedFeature(
                "The log store cannot store transaction \(transaction) so that it reads back exactly: \(problem). "
                + "Change the value; nothing was written.")
        }
    }
}
