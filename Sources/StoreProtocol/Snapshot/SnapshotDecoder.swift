import Foundation

/// Decodes any `Decodable` value (a `Codable` composite attribute, a store's own records)
/// straight from ``SnapshotValue``s.
///
/// Numbers convert between widths when they fit exactly (`.int(3)` decodes as `Double`, `UInt8`,
/// …); a value that does not fit or has the wrong kind throws `DecodingError.typeMismatch` naming
/// the attribute's coding path.
public struct SnapshotDecoder: Sendable {
    /// Makes a decoder; it has no options.
    public init() {}

    /// Decodes a `T` from one snapshot value.
    /// - Throws: `DecodingError` when the value does not have `T`'s shape.
    public func decode<T: Decodable>(_ type: T.Type, from value: SnapshotValue) throws -> T {
        try SnapshotDecoding.unbox(value, as: T.self, codingPath: [])
    }

    /// Decodes a keyed value from its fields.
    /// - Throws: `DecodingError` when an attribute is missing or does not decode.
    public func decode<T: Decodable>(_ type: T.Type, fromAttributes attributes: [String: SnapshotValue]) throws -> T {
        try SnapshotDecoding.unbox(.object(attributes), as: T.self, codingPath: [])
    }
}

enum SnapshotDecoding {
    static func mismatch<T>(_ type: T.Type, _ value: SnapshotValue, _ codingPath: @autoclosure () -> [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath(), debugDescription: "Expected \(T.self), found \(value)."))
    }

    // The conversions are SnapshotValueConvertible's, which the @Model path uses too: one rule
    // for what reads as what.
    static func integer<I: FixedWidthInteger & SnapshotValueConvertible>(
        _ value: SnapshotValue, as type: I.Type, _ codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> I {
        do { return try I(snapshotValue: value) } catch { throw mismatch(type, value, codingPath()) }
    }

    static func floating(_ value: SnapshotValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Double {
        do { return try Double(snapshotValue: value) } catch { throw mismatch(Double.self, value, codingPath()) }
    }

    static func string(_ value: SnapshotValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let v) = value else { throw mismatch(String.self, value, codingPath()) }
        return v
    }

    static func bool(_ value: SnapshotValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let v) = value else { throw mismatch(Bool.self, value, codingPath()) }
        return v
    }

    /// Decodes one value. Types with their own snapshot case are matched by metatype identity,
    /// which costs a pointer comparison where a cast (`case is Date.Type`) walks the runtime.
    static func unbox<T: Decodable>(_ value: SnapshotValue, as type: T.Type, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        if type == String.self { return reinterpret(try string(value, codingPath()), as: T.self) }
        if type == Int.self { return reinterpret(try integer(value, as: Int.self, codingPath()), as: T.self) }
        if type == Double.self { return reinterpret(try floating(value, codingPath()), as: T.self) }
        if type == Bool.self { return reinterpret(try bool(value, codingPath()), as: T.self) }
        if type == Date.self {
            switch value {
            case .date(let v): return reinterpret(v, as: T.self)
            case .int, .double, .unsigned: return reinterpret(Date(timeIntervalSince1970: try floating(value, codingPath())), as: T.self)
            default: throw mismatch(type, value, codingPath())
            }
        }
        if type == UUID.self {
            switch value {
            case .uuid(let v): return reinterpret(v, as: T.self)
            case .string(let s):
                guard let v = UUID(uuidString: s) else { throw mismatch(type, value, codingPath()) }
                return reinterpret(v, as: T.self)
            default: throw mismatch(type, value, codingPath())
            }
        }
        if type == SnapshotValue.self { return reinterpret(value, as: T.self) }
        if type == Data.self {
            guard case .data(let v) = value else { throw mismatch(type, value, codingPath()) }
            return reinterpret(v, as: T.self)
        }
        if type == URL.self {
            guard case .string(let s) = value, let v = URL(string: s) else { throw mismatch(type, value, codingPath()) }
            return reinterpret(v, as: T.self)
        }
        if type == Decimal.self {
            switch value {
            case .decimal(let v): return reinterpret(v, as: T.self)
            case .int(let v): return reinterpret(Decimal(v), as: T.self)
            case .double(let v): return reinterpret(Decimal(v), as: T.self)
            default: throw mismatch(type, value, codingPath())
            }
        }
        if type == Float.self { return reinterpret(Float(bitExact: try floating(value, codingPath())), as: T.self) }
        if type == Int8.self { return reinterpret(try integer(value, as: Int8.self, codingPath()), as: T.self) }
        if type == Int16.self { return reinterpret(try integer(value, as: Int16.self, codingPath()), as: T.self) }
        if type == Int32.self { return reinterpret(try integer(value, as: Int32.self, codingPath()), as: T.self) }
        if type == Int64.self { return reinterpret(try integer(value, as: Int64.self, codingPath()), as: T.self) }
        if type == UInt.self { return reinterpret(try integer(value, as: UInt.self, codingPath()), as: T.self) }
        if type == UInt8.self { return reinterpret(try integer(value, as: UInt8.self, codingPath()), as: T.self) }
        if type == UInt16.self { return reinterpret(try integer(value, as: UInt16.self, codingPath()), as: T.self) }
        if type == UInt32.self { return reinterpret(try integer(value, as: UInt32.self, codingPath()), as: T.self) }
        if type == UInt64.self { return reinterpret(try integer(value, as: UInt64.self, codingPath()), as: T.self) }
        return try T(from: Decoder(value: value, codingPath: codingPath()))
    }

    final class Decoder: Swift.Decoder {
        let value: SnapshotValue
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        init(value: SnapshotValue, codingPath: [any CodingKey]) {
            self.value = value
            self.codingPath = codingPath
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let object) = value else {
                throw mismatch([String: SnapshotValue].self, value, codingPath)
            }
            return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let array) = value else { throw mismatch([SnapshotValue].self, value, codingPath) }
            return UnkeyedContainer(array: array, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            SingleContainer(value: value, codingPath: codingPath)
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: SnapshotValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func value(for key: Key) throws -> SnapshotValue {
            guard let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(
                    codingPath: codingPath, debugDescription: "No value for attribute '\(key.stringValue)'."))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard let value = object[key.stringValue] else { return true }
            if case .null = value { return true }
            return false
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try unbox(try value(for: key), as: type, codingPath: codingPath + [key])
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let value = object[key.stringValue], value != .null else { return nil }
            return try unbox(value, as: type, codingPath: codingPath + [key])
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try string(try value(for: key), codingPath + [key])
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            try integer(try value(for: key), as: Int.self, codingPath + [key])
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            try bool(try value(for: key), codingPath + [key])
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try floating(try value(for: key), codingPath + [key])
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            Float(bitExact: try floating(try value(for: key), codingPath + [key]))
        }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(try value(for: key), as: type, codingPath + [key]) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(try value(for: key), as: type, codingPath + [key]) }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try Decoder(value: try value(for: key), codingPath: codingPath + [key]).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try Decoder(value: try value(for: key), codingPath: codingPath + [key]).unkeyedContainer()
        }
        func superDecoder() throws -> any Swift.Decoder {
            Decoder(value: object["super"] ?? .null, codingPath: codingPath)
        }
        func superDecoder(forKey key: Key) throws -> any Swift.Decoder {
            Decoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let array: [SnapshotValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { array.count }
        var isAtEnd: Bool { currentIndex >= array.count }

        init(array: [SnapshotValue], codingPath: [any CodingKey]) {
            self.array = array
            self.codingPath = codingPath
        }

        private mutating func next<T>(_ type: T.Type) throws -> (SnapshotValue, [any CodingKey]) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "The array has no more elements."))
            }
            defer { currentIndex += 1 }
            return (array[currentIndex], codingPath + [IndexKey(index: currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, case .null = array[currentIndex] else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next(type)
            return try unbox(value, as: type, codingPath: path)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (value, path) = try next([String: SnapshotValue].self)
            return try Decoder(value: value, codingPath: path).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, path) = try next([SnapshotValue].self)
            return try Decoder(value: value, codingPath: path).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Swift.Decoder {
            let (value, path) = try next(SnapshotValue.self)
            return Decoder(value: value, codingPath: path)
        }
    }

    struct SingleContainer: SingleValueDecodingContainer {
        let value: SnapshotValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool {
            if case .null = value { return true }
            return false
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(value, as: type, codingPath: codingPath) }
        func decode(_ type: String.Type) throws -> String { try string(value, codingPath) }
        func decode(_ type: Bool.Type) throws -> Bool { try bool(value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try floating(value, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { Float(bitExact: try floating(value, codingPath)) }
        func decode(_ type: Int.Type) throws -> Int { try integer(value, as: type, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(value, as: type, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(value, as: type, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(value, as: type, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(value, as: type, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(value, as: type, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(value, as: type, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(value, as: type, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(value, as: type, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(value, as: type, codingPath) }
    }
}
