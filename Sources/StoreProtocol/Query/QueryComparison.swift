import Foundation

/// A comparison operator of a ``QueryExpression``, with Swift's meaning.
///
/// Both operands are values of one Swift type (`#Predicate` only compares values of one type),
/// in canonical form (``QueryValueType/canonicalValue(of:)``). ``evaluate(_:_:)`` applies the
/// type's own Swift operator:
///
/// - integers exactly, across `Int64` and `UInt64` (no detour through `Double`);
/// - `Float` and `Double` as IEEE 754 does: `-0.0 == 0.0`, and NaN is equal to nothing, not
///   even itself, and ordered with nothing (`NaN != NaN` holds, `NaN <= x` does not);
/// - `String` by Swift's `==` and `<`: canonical equivalence (`"é"` precomposed equals `"e"`
///   followed by U+0301), ordered by Unicode scalar values of the NFC form; **not** a collation;
/// - `Date` by its time interval, `UUID` by its bytes, `Bool` by `==` only;
/// - `nil` (``SnapshotValue/null``) equals `nil` and nothing else; it is never ordered (Swift
///   has no `<` on optionals, so `#Predicate` cannot ask).
public enum QueryComparison: String, Sendable, Hashable, CaseIterable {
    /// `==`: equal values, `nil` equal to `nil`.
    case equal = "=="
    /// `!=`: the negation of `==`.
    case notEqual = "!="
    /// `<`: ordered before.
    case lessThan = "<"
    /// `<=`: ordered before or equal.
    case lessThanOrEqual = "<="
    /// `>`: ordered after.
    case greaterThan = ">"
    /// `>=`: ordered after or equal.
    case greaterThanOrEqual = ">="

    /// Whether `lhs op rhs` holds for two canonical values of one type; `nil` when the values are
    /// not of one type, or are ordered but not orderable (`nil`, `Bool`), which a translated
    /// predicate never asks.
    /// - Complexity: O(1), but O(*n*) in the length of strings.
    public func evaluate(_ lhs: SnapshotValue, _ rhs: SnapshotValue) -> Bool? {
        switch self {
        case .equal: return Self.equal(lhs, rhs)
        case .notEqual: return Self.equal(lhs, rhs).map(!)
        case .lessThan: return Self.order(lhs, rhs, <, <, <, <, <, <)
        case .lessThanOrEqual: return Self.order(lhs, rhs, <=, <=, <=, <=, <=, <=)
        case .greaterThan: return Self.order(lhs, rhs, >, >, >, >, >, >)
        case .greaterThanOrEqual: return Self.order(lhs, rhs, >=, >=, >=, >=, >=, >=)
        }
    }

    /// Swift's `==` on two canonical values of one type.
    static func equal(_ lhs: SnapshotValue, _ rhs: SnapshotValue) -> Bool? {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case let (.int(a), .int(b)): return a == b
        case let (.unsigned(a), .unsigned(b)): return a == b
        case (.int, .unsigned), (.unsigned, .int): return false   // canonical: .unsigned is above Int64.max
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        default: return nil
        }
    }

    /// An ordering operator on two canonical values of one type, by that type's operator.
    private static func order(
        _ lhs: SnapshotValue, _ rhs: SnapshotValue,
        _ int: (Int64, Int64) -> Bool, _ unsigned: (UInt64, UInt64) -> Bool, _ double: (Double, Double) -> Bool,
        _ string: (String, String) -> Bool, _ date: (Date, Date) -> Bool, _ uuid: (UUID, UUID) -> Bool
    ) -> Bool? {
        switch (lhs, rhs) {
        case let (.int(a), .int(b)): return int(a, b)
        case let (.unsigned(a), .unsigned(b)): return unsigned(a, b)
        // Canonical integers: every .int is below every .unsigned; the operator decides on any
        // pair with that order, here 0 and 1.
        case (.int, .unsigned): return int(0, 1)
        case (.unsigned, .int): return int(1, 0)
        case let (.double(a), .double(b)): return double(a, b)
        case let (.string(a), .string(b)): return string(a, b)
        case let (.date(a), .date(b)): return date(a, b)
        case let (.uuid(a), .uuid(b)): return uuid(a, b)
        default: return nil
        }
    }
}

extension QueryComparison {
    /// The operator with its operands swapped: `a < b` is `b > a`. A store reading
    /// `constant op attribute` reads it as `attribute op.swapped constant`.
    public var swapped: QueryComparison {
        switch self {
        case .equal, .notEqual: return self
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        }
    }
}
