import Foundation

/// One attribute value of a ``DataStoreSnapshot``: the framework's Sendable, Codable picture of
/// whatever a model stores.
///
/// The model coder (``ModelCoding``, and ``SnapshotEncoder`` / ``SnapshotDecoder`` for `Codable`
/// composite attributes) maps Swift values to these cases:
/// every integer width to ``int(_:)`` (``unsigned(_:)`` only above `Int64.max`), `Float` and
/// `Double` to ``double(_:)``, `URL` to ``string(_:)``, nested structs to ``object(_:)``,
/// arrays to ``array(_:)`` and `nil` to ``null``.
///
/// Equality is numeric across ``int(_:)``, ``unsigned(_:)`` and ``double(_:)`` (`.int(3) ==
/// .double(3)`), because a number read back from JSON cannot tell which one it was written as;
/// it is exact (`.unsigned(UInt64.max) != .unsigned(UInt64.max - 1)`), never through `Double`.
public enum SnapshotValue: Sendable {
    /// No value: a `nil` optional.
    case null
    /// A `Bool`.
    case bool(Bool)
    /// An integer of any width that fits in `Int64`.
    case int(Int64)
    /// An unsigned integer above `Int64.max`; smaller unsigned values are ``int(_:)``.
    case unsigned(UInt64)
    /// A `Double`, or a `Float` widened exactly.
    case double(Double)
    /// A `String`, or a `URL` as its absolute string.
    case string(String)
    /// A `Date`.
    case date(Date)
    /// A `UUID`.
    case uuid(UUID)
    /// A `Data`.
    case data(Data)
    /// A `Decimal`, exact.
    case decimal(Decimal)
    /// An array, or a to-many relationship's primary keys.
    case array([SnapshotValue])
    /// A nested struct (or other keyed value), by coding key.
    case object([String: SnapshotValue])
}

extension SnapshotValue: Equatable {
    public static func == (lhs: SnapshotValue, rhs: SnapshotValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.decimal(a), .decimal(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.unsigned(a), .unsigned(b)): return a == b
        case let (.int(a), .unsigned(b)), let (.unsigned(b), .int(a)): return a >= 0 && UInt64(a) == b
        case let (.double(a), .double(b)): return a == b
        case let (.int(a), .double(b)), let (.double(b), .int(a)): return Self.exactlyEqual(b, a)
        case let (.unsigned(a), .double(b)), let (.double(b), .unsigned(a)): return Self.exactlyEqual(b, a)
        default: return false
        }
    }

    /// Whether a double and an integer are the same number, without rounding the integer to a
    /// double (`2^53 + 1` is not `2^53`, which a comparison through `Double` would say it is).
    private static func exactlyEqual<I: BinaryInteger>(_ double: Double, _ integer: I) -> Bool {
        guard let exact = I(exactly: double) else { return false }
        return exact == integer
    }

    /// The value as a `Double` when it is a number of any kind (``int(_:)``, ``unsigned(_:)``,
    /// ``double(_:)``), `nil` otherwise.
    public var numericValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .unsigned(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }
}

extension SnapshotValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(v)
        case .int, .unsigned, .double:
            // Equal numbers of different cases must hash alike (see ==).
            hasher.combine(numericValue ?? 0)
        case .string(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .decimal(let v): hasher.combine(v)
        case .array(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v)
        }
    }
}

extension SnapshotValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let v): return String(v)
        case .int(let v): return String(v)
        case .unsigned(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return String(reflecting: v)
        case .date(let v): return v.formatted(.iso8601)
        case .uuid(let v): return v.uuidString
        case .data(let v): return "\(v.count) bytes"
        case .decimal(let v): return v.description
        case .array(let v): return "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .object(let v):
            return "{" + v.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}
