import Foundation
import StoreProtocol

/// A canonical query value as an index key, whose `==`, hashing and `<` are
/// `QueryComparison`'s on values of one type: exact integers across `Int64` and `UInt64`
/// (`SnapshotValue`'s own `==` compares numbers through `Double`), IEEE equality and order of
/// doubles without NaN (`-0.0 == 0.0`, hashed alike), Swift's `String` equality and order
/// (canonical equivalence, hashed alike), dates by their time interval, UUIDs by their bytes.
///
/// `nil` sorts first, as a `SortDescriptor` puts it. Keys of different kinds (which one
/// attribute's canonical values never mix, except `.int` below `.unsigned`) order by kind, so
/// that `<` is a strict total order on every key.
enum IndexKey: Hashable, Comparable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case date(Double)
    case uuid(UUID)

    /// `nil` for NaN (equal to nothing, ordered with nothing) and for kinds a query does not compare.
    init?(_ value: SnapshotValue) {
        switch value {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .unsigned(let v): self = .unsigned(v)
        case .double(let v):
            guard !v.isNaN else { return nil }
            self = .double(v)
        case .string(let v): self = .string(v)
        case .date(let v):
            guard !v.timeIntervalSinceReferenceDate.isNaN else { return nil }
            self = .date(v.timeIntervalSinceReferenceDate)
        case .uuid(let v): self = .uuid(v)
        case .data, .decimal, .array, .object: return nil
        }
    }

    /// Whether a value is NaN (a `Double`, or a `Date` built on one): the one canonical value
    /// that has no key.
    static func isNaN(_ value: SnapshotValue) -> Bool {
        switch value {
        case .double(let v): return v.isNaN
        case .date(let d): return d.timeIntervalSinceReferenceDate.isNaN
        default: return false
        }
    }

    /// Whether two values are of the same `SnapshotValue` case.
    static func sameCase(_ a: SnapshotValue, _ b: SnapshotValue) -> Bool {
        switch (a, b) {
        case (.null, .null), (.bool, .bool), (.int, .int), (.unsigned, .unsigned), (.double, .double),
             (.string, .string), (.date, .date), (.uuid, .uuid): return true
        default: return false
        }
    }

    static func < (lhs: IndexKey, rhs: IndexKey) -> Bool {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return !a && b
        case let (.int(a), .int(b)): return a < b
        case let (.unsigned(a), .unsigned(b)): return a < b
        case let (.double(a), .double(b)): return a < b
        case let (.string(a), .string(b)): return a < b
        case let (.date(a), .date(b)): return a < b
        case let (.uuid(a), .uuid(b)): return a < b
        default: return lhs.rank < rhs.rank
        }
    }

    /// The order of kinds: `nil` first, and every `Int64` below every `UInt64` (canonical
    /// integers are `.unsigned` only above `Int64.max`).
    private var rank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int: return 2
        case .unsigned: return 3
        case .double: return 4
        case .string: return 5
        case .date: return 6
        case .uuid: return 7
        }
    }
}
