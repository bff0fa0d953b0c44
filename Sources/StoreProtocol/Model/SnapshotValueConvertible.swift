import Foundation

/// A type the model coder (``ModelCoding``) maps to and from a ``SnapshotValue`` directly,
/// without `Codable`: every integer width, `Double`, `Float`, `Bool`, `String`, `Date`, `Data`,
/// `UUID`, `URL`, `Decimal`, ``SnapshotValue`` itself, and optionals, arrays and `String`-keyed
/// dictionaries of them.
///
/// Each conversion gives exactly what ``SnapshotEncoder`` and ``SnapshotDecoder`` give for the
/// same value, so a `Codable` composite attribute and a converted one read alike. Public for
/// the `@Model` expansion and code generators; not meant for an app's own types (give those
/// `Codable` or a raw value, which ``ModelCoding`` stores as composite attributes).
public protocol SnapshotValueConvertible {
    /// The value as stored.
    var snapshotValue: SnapshotValue { get }
    /// The value stored as `value`; throws ``SnapshotValueMismatch`` when it is not one.
    init(snapshotValue value: SnapshotValue) throws
    /// The value of an attribute the stored values leave out: `nil` for an optional (whose `nil`
    /// is stored so), no value (`nil` here) for every other type, whose absence is an error.
    static var valueWhenAbsent: Self? { get }
}

extension SnapshotValueConvertible {
    @inlinable public static var valueWhenAbsent: Self? { nil }
}

/// A stored value that is not of the type asked for: what ``SnapshotValueConvertible`` throws,
/// which ``ModelCoding`` turns into a ``DataStoreError`` naming the attribute and entity.
public struct SnapshotValueMismatch: Error, Sendable {
    /// The type asked for.
    public let expected: String
    /// The value found.
    public let found: SnapshotValue

    /// A mismatch: `found` is not a `T`.
    public init<T>(_: T.Type, found: SnapshotValue) {
        expected = "\(T.self)"
        self.found = found
    }
}

extension SnapshotValueConvertible where Self: FixedWidthInteger {
    @inlinable public var snapshotValue: SnapshotValue {
        if let small = Int64(exactly: self) { return .int(small) }
        return .unsigned(UInt64(self))
    }

    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        let result: Self?
        switch value {
        case .int(let v): result = Self(exactly: v)
        case .unsigned(let v): result = Self(exactly: v)
        case .double(let v): result = Self(exactly: v)
        default: result = nil
        }
        guard let result else { throw SnapshotValueMismatch(Self.self, found: value) }
        self = result
    }
}

extension Int: SnapshotValueConvertible {}
extension Int8: SnapshotValueConvertible {}
extension Int16: SnapshotValueConvertible {}
extension Int32: SnapshotValueConvertible {}
extension Int64: SnapshotValueConvertible {}
extension UInt: SnapshotValueConvertible {}
extension UInt8: SnapshotValueConvertible {}
extension UInt16: SnapshotValueConvertible {}
extension UInt32: SnapshotValueConvertible {}
extension UInt64: SnapshotValueConvertible {}

extension Double: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .double(self) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        switch value {
        case .double(let v): self = v
        case .int(let v): self = Double(v)
        case .unsigned(let v): self = Double(v)
        default: throw SnapshotValueMismatch(Double.self, found: value)
        }
    }
}

extension Float: SnapshotValueConvertible {
    /// Widened exactly to a `Double`, a NaN by its bits (see `bitExactDouble`).
    @inlinable public var snapshotValue: SnapshotValue { .double(bitExactDouble) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        do { self = Float(bitExact: try Double(snapshotValue: value)) } catch { throw SnapshotValueMismatch(Float.self, found: value) }
    }
}

extension Bool: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .bool(self) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        guard case .bool(let v) = value else { throw SnapshotValueMismatch(Bool.self, found: value) }
        self = v
    }
}

extension String: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .string(self) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        guard case .string(let v) = value else { throw SnapshotValueMismatch(String.self, found: value) }
        self = v
    }
}

extension Date: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .date(self) }
    /// A ``SnapshotValue/date(_:)``, or a number of seconds since 1970 (as ``SnapshotDecoder``
    /// reads one).
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        switch value {
        case .date(let v): self = v
        case .int, .unsigned, .double: self = Date(timeIntervalSince1970: try Double(snapshotValue: value))
        default: throw SnapshotValueMismatch(Date.self, found: value)
        }
    }
}

extension UUID: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .uuid(self) }
    /// A ``SnapshotValue/uuid(_:)``, or a string holding one.
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        switch value {
        case .uuid(let v): self = v
        case .string(let s):
            guard let v = UUID(uuidString: s) else { throw SnapshotValueMismatch(UUID.self, found: value) }
            self = v
        default: throw SnapshotValueMismatch(UUID.self, found: value)
        }
    }
}

extension Data: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .data(self) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        guard case .data(let v) = value else { throw SnapshotValueMismatch(Data.self, found: value) }
        self = v
    }
}

extension URL: SnapshotValueConvertible {
    /// The URL's absolute string.
    @inlinable public var snapshotValue: SnapshotValue { .string(absoluteString) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        guard case .string(let s) = value, let v = URL(string: s) else { throw SnapshotValueMismatch(URL.self, found: value) }
        self = v
    }
}

extension Decimal: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .decimal(self) }
    /// A ``SnapshotValue/decimal(_:)``, or an ``SnapshotValue/int(_:)`` or
    /// ``SnapshotValue/double(_:)`` (as ``SnapshotDecoder`` reads one).
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        switch value {
        case .decimal(let v): self = v
        case .int(let v): self = Decimal(v)
        case .double(let v): self = Decimal(v)
        default: throw SnapshotValueMismatch(Decimal.self, found: value)
        }
    }
}

extension SnapshotValue: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { self }
    @inlinable public init(snapshotValue value: SnapshotValue) throws { self = value }
}

extension Optional: SnapshotValueConvertible where Wrapped: SnapshotValueConvertible {
    /// ``SnapshotValue/null`` for `nil` (inside an array or dictionary; an optional attribute that
    /// is `nil` is left out of the stored values, see ``ModelCoding``).
    @inlinable public var snapshotValue: SnapshotValue { self?.snapshotValue ?? .null }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        self = value == .null ? nil : try Wrapped(snapshotValue: value)
    }
    @inlinable public static var valueWhenAbsent: Self? { .some(nil) }
}

extension Array: SnapshotValueConvertible where Element: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .array(map(\.snapshotValue)) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        guard case .array(let elements) = value else { throw SnapshotValueMismatch(Self.self, found: value) }
        self = try elements.map(Element.init(snapshotValue:))
    }
}

extension Dictionary: SnapshotValueConvertible where Key == String, Value: SnapshotValueConvertible {
    @inlinable public var snapshotValue: SnapshotValue { .object(mapValues(\.snapshotValue)) }
    @inlinable public init(snapshotValue value: SnapshotValue) throws {
        guard case .object(let members) = value else { throw SnapshotValueMismatch(Self.self, found: value) }
        self = try members.mapValues(Value.init(snapshotValue:))
    }
}
