import Foundation

/// The Swift type of a value in a ``QueryExpression``: which model property types a query can
/// name, and how a stored ``SnapshotValue`` reads as each.
///
/// A query compares values as the model's own Swift type would: a stored value is first turned
/// into its *canonical* form for the type (``canonicalValue(of:)``), the form a constant of that
/// type takes in a query. Comparisons then follow the type's Swift operators (see
/// ``QueryComparison``).
public enum QueryValueType: String, Sendable, Hashable, CaseIterable {
    /// `Bool`: canonical form ``SnapshotValue/bool(_:)``.
    case bool
    /// `Int`: canonical form ``SnapshotValue/int(_:)``.
    case int
    /// `Int8`: canonical form ``SnapshotValue/int(_:)``.
    case int8
    /// `Int16`: canonical form ``SnapshotValue/int(_:)``.
    case int16
    /// `Int32`: canonical form ``SnapshotValue/int(_:)``.
    case int32
    /// `Int64`: canonical form ``SnapshotValue/int(_:)``.
    case int64
    /// `UInt`: canonical form ``SnapshotValue/int(_:)``, or ``SnapshotValue/unsigned(_:)``
    /// above `Int64.max`.
    case uint
    /// `UInt8`: canonical form ``SnapshotValue/int(_:)``.
    case uint8
    /// `UInt16`: canonical form ``SnapshotValue/int(_:)``.
    case uint16
    /// `UInt32`: canonical form ``SnapshotValue/int(_:)``.
    case uint32
    /// `UInt64`: canonical form ``SnapshotValue/int(_:)``, or ``SnapshotValue/unsigned(_:)``
    /// above `Int64.max`.
    case uint64
    /// `Float`: canonical form ``SnapshotValue/double(_:)`` holding the exact `Float` value.
    case float
    /// `Double`: canonical form ``SnapshotValue/double(_:)``.
    case double
    /// `String`: canonical form ``SnapshotValue/string(_:)``.
    case string
    /// `Date`: canonical form ``SnapshotValue/date(_:)``; a stored number reads as seconds since 1970.
    case date
    /// `UUID`: canonical form ``SnapshotValue/uuid(_:)``.
    case uuid

    /// Whether values of the type are integers (canonical form ``SnapshotValue/int(_:)``, or
    /// ``SnapshotValue/unsigned(_:)`` above `Int64.max`).
    public var isInteger: Bool {
        switch self {
        case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64: return true
        default: return false
        }
    }

    /// A stored value as a model property of this type reads it (as ``SnapshotDecoder`` decodes
    /// it), in canonical form: integers as ``SnapshotValue/int(_:)`` (``SnapshotValue/unsigned(_:)``
    /// only above `Int64.max`), `Float` and `Double` as ``SnapshotValue/double(_:)``, and
    /// `String`, `Bool`, `Date` and `UUID` in their own cases. ``SnapshotValue/null`` stays as it is.
    ///
    /// `nil` when the decoder would not read the value as this type (a number that does not fit,
    /// another kind of value) or reads it in a way a query does not mirror (a `UUID` stored as a
    /// string): the caller then decides on the decoded model instead.
    /// - Complexity: O(1).
    public func canonicalValue(of value: SnapshotValue) -> SnapshotValue? {
        if case .null = value { return value }
        switch self {
        case .bool:
            if case .bool = value { return value }
            return nil
        case .string:
            if case .string = value { return value }
            return nil
        case .uuid:
            if case .uuid = value { return value }
            return nil
        case .date:
            switch value {
            case .date: return value
            // As the decoder does: a number is seconds since 1970.
            case .int, .unsigned, .double: return Self.double.canonicalValue(of: value).flatMap {
                guard case .double(let seconds) = $0 else { return nil }
                return .date(Date(timeIntervalSince1970: seconds))
            }
            default: return nil
            }
        case .double:
            switch value {
            case .double: return value
            case .int(let v): return .double(Double(v))
            case .unsigned(let v): return .double(Double(v))
            default: return nil
            }
        case .float:
            guard case .double(let v)? = Self.double.canonicalValue(of: value) else { return nil }
            return .double(Float(bitExact: v).bitExactDouble)
        case .int: return Self.integer(value, as: Int.self)
        case .int8: return Self.integer(value, as: Int8.self)
        case .int16: return Self.integer(value, as: Int16.self)
        case .int32: return Self.integer(value, as: Int32.self)
        case .int64: return Self.integer(value, as: Int64.self)
        case .uint: return Self.integer(value, as: UInt.self)
        case .uint8: return Self.integer(value, as: UInt8.self)
        case .uint16: return Self.integer(value, as: UInt16.self)
        case .uint32: return Self.integer(value, as: UInt32.self)
        case .uint64: return Self.integer(value, as: UInt64.self)
        }
    }

    /// An integer as `I` reads it exactly (as the decoder does), in canonical form.
    private static func integer<I: FixedWidthInteger>(_ value: SnapshotValue, as _: I.Type) -> SnapshotValue? {
        let read: I?
        switch value {
        case .int(let v): read = I(exactly: v)
        case .unsigned(let v): read = I(exactly: v)
        case .double(let v): read = I(exactly: v)
        default: read = nil
        }
        guard let read else { return nil }
        return canonicalInteger(read)
    }

    /// An integer in canonical form: ``SnapshotValue/int(_:)`` when it fits in `Int64`.
    static func canonicalInteger<I: FixedWidthInteger>(_ value: I) -> SnapshotValue {
        if let signed = Int64(exactly: value) { return .int(signed) }
        return .unsigned(UInt64(value))   // above Int64.max, so non-negative
    }
}
