import Foundation

/// Encodes any `Encodable` value (a `Codable` composite attribute, a store's own records)
/// straight into ``SnapshotValue``s, without a JSON round trip.
///
/// `Date`, `UUID`, `Data` and `Decimal` keep their own cases; `URL` becomes its absolute string;
/// every integer width becomes ``SnapshotValue/int(_:)``.
public struct SnapshotEncoder: Sendable {
    /// Makes an encoder; it has no options.
    public init() {}

    /// Encodes `value` into one snapshot value.
    /// - Throws: `EncodingError` when the value's own `encode(to:)` throws;
    ///   ``DataStoreError/Code/unsupportedValue`` when the value's arrays and objects nest deeper
    ///   than ``SnapshotValue/maximumNestingDepth`` (counted as a JSON store counts them, the
    ///   value itself being the first level), which no store holds.
    public func encode<T: Encodable>(_ value: T) throws -> SnapshotValue {
        do {
            return try SnapshotEncoding.box(value, codingPath: [], depth: 0).finish(depth: 0)
        } catch let error as SnapshotEncoding.TooDeep {
            throw error.refusal(of: T.self)
        }
    }

    /// Encodes a keyed value into its fields: coding key -> value.
    /// Optionals that are `nil` are absent, as Codable's synthesized `encodeIfPresent` leaves them.
    /// - Throws: `EncodingError.invalidValue` when the value does not encode as a keyed container.
    /// - Complexity: O(*n*) in the size of the encoded value.
    public func encodeAttributes<T: Encodable>(_ value: T) throws -> [String: SnapshotValue] {
        switch try encode(value) {
        case .object(let attributes): return attributes
        default:
            throw EncodingError.invalidValue(value, .init(
                codingPath: [], debugDescription: "\(T.self) must encode as a keyed container to be a model."))
        }
    }
}

/// The encoder's working tree: containers hand out references so that nested containers can be
/// filled after they are created, then the tree is frozen into `SnapshotValue`s.
enum SnapshotEncoding {
    final class ObjectBox { var slots: [String: Slot] = [:] }
    final class ArrayBox { var slots: [Slot] = [] }

    enum Slot {
        case value(SnapshotValue)
        case object(ObjectBox)
        case array(ArrayBox)

        /// The slot's value, when it and what it holds nest no deeper than the limit, `depth`
        /// being its own level (a container built by a value's own recursion through nested
        /// containers, which `box` does not see, is measured here).
        func finish(depth: Int) throws(TooDeep) -> SnapshotValue {
            guard depth < SnapshotValue.maximumNestingDepth else { throw TooDeep(path: []) }
            switch self {
            case .value(let v): return v
            case .object(let box):
                var object = [String: SnapshotValue](minimumCapacity: box.slots.count)
                for (key, slot) in box.slots {
                    do { object[key] = try slot.finish(depth: depth + 1) } catch { throw TooDeep(path: [".\(key)"] + error.path) }
                }
                return .object(object)
            case .array(let box):
                var array: [SnapshotValue] = []
                array.reserveCapacity(box.slots.count)
                for (index, slot) in box.slots.enumerated() {
                    do { array.append(try slot.finish(depth: depth + 1)) } catch { throw TooDeep(path: ["[\(index)]"] + error.path) }
                }
                return .array(array)
            }
        }
    }

    /// A value nesting deeper than ``SnapshotValue/maximumNestingDepth``; `path` names where,
    /// outermost step first.
    struct TooDeep: Error {
        var path: [String]

        init(path: [String]) { self.path = path }

        /// Where a too-deep value was met, from the coding path of the value one level too deep.
        init(codingPath: [any CodingKey]) {
            path = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
        }

        /// The error a store would give for it, worded as `SnapshotJSON`'s refusal.
        func refusal<T>(of type: T.Type) -> DataStoreError {
            // The outermost steps say where; the rest repeats.
            let steps = path.prefix(6).joined() + (path.count > 6 ? "…" : "")
            return DataStoreError(.unsupportedValue,
                "A value of \(T.self) nests more than \(SnapshotValue.maximumNestingDepth) levels deep"
                + "\(steps.isEmpty ? "" : " (at \(steps))"), which no store holds. Flatten the attribute; nothing was written.")
        }
    }

    static func integer<I: FixedWidthInteger>(_ v: I) -> SnapshotValue {
        if let small = Int64(exactly: v) { return .int(small) }
        return .unsigned(UInt64(v))
    }

    /// Boxes one value, recognising primitives (whose own `encode(to:)` would call back here)
    /// and the types that have their own snapshot case, by metatype identity: a pointer
    /// comparison, where a chain of `as?` casts walks the runtime for each attribute.
    /// `depth` is the value's level (the encoded value's is 0); a value at the limit or below is
    /// refused before its `encode(to:)` runs, so a recursive type cannot exhaust the stack.
    static func box<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey], depth: Int) throws -> Slot {
        guard depth < SnapshotValue.maximumNestingDepth else { throw TooDeep(codingPath: codingPath()) }
        let type = T.self
        if type == String.self { return .value(.string(reinterpret(value, as: String.self))) }
        if type == Int.self { return .value(.int(Int64(reinterpret(value, as: Int.self)))) }
        if type == Double.self { return .value(.double(reinterpret(value, as: Double.self))) }
        if type == Bool.self { return .value(.bool(reinterpret(value, as: Bool.self))) }
        if type == Date.self { return .value(.date(reinterpret(value, as: Date.self))) }
        if type == UUID.self { return .value(.uuid(reinterpret(value, as: UUID.self))) }
        if type == SnapshotValue.self { return .value(reinterpret(value, as: SnapshotValue.self)) }
        if type == Data.self { return .value(.data(reinterpret(value, as: Data.self))) }
        if type == URL.self { return .value(.string(reinterpret(value, as: URL.self).absoluteString)) }
        if type == Decimal.self { return .value(.decimal(reinterpret(value, as: Decimal.self))) }
        if type == Float.self { return .value(.double(reinterpret(value, as: Float.self).bitExactDouble)) }
        if type == Int8.self { return .value(integer(reinterpret(value, as: Int8.self))) }
        if type == Int16.self { return .value(integer(reinterpret(value, as: Int16.self))) }
        if type == Int32.self { return .value(integer(reinterpret(value, as: Int32.self))) }
        if type == Int64.self { return .value(integer(reinterpret(value, as: Int64.self))) }
        if type == UInt.self { return .value(integer(reinterpret(value, as: UInt.self))) }
        if type == UInt8.self { return .value(integer(reinterpret(value, as: UInt8.self))) }
        if type == UInt16.self { return .value(integer(reinterpret(value, as: UInt16.self))) }
        if type == UInt32.self { return .value(integer(reinterpret(value, as: UInt32.self))) }
        if type == UInt64.self { return .value(integer(reinterpret(value, as: UInt64.self))) }
        let encoder = Encoder(codingPath: codingPath(), depth: depth)
        try value.encode(to: encoder)
        return encoder.slot ?? .value(.object([:]))
    }

    final class Encoder: Swift.Encoder {
        let codingPath: [any CodingKey]
        /// The level of the value this encoder encodes; what its containers hold is one deeper.
        let depth: Int
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var slot: Slot?

        init(codingPath: [any CodingKey], depth: Int) {
            self.codingPath = codingPath
            self.depth = depth
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let box: ObjectBox
            if case .object(let existing) = slot { box = existing } else { box = ObjectBox(); slot = .object(box) }
            return KeyedEncodingContainer(KeyedContainer(box: box, codingPath: codingPath, depth: depth))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let box: ArrayBox
            if case .array(let existing) = slot { box = existing } else { box = ArrayBox(); slot = .array(box) }
            return UnkeyedContainer(box: box, codingPath: codingPath, depth: depth)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: ObjectBox
        let codingPath: [any CodingKey]
        /// The level of the object; its values are one deeper.
        let depth: Int

        mutating func encodeNil(forKey key: Key) { box.slots[key.stringValue] = .value(.null) }
        mutating func encode(_ value: Bool, forKey key: Key) { box.slots[key.stringValue] = .value(.bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) { box.slots[key.stringValue] = .value(.string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) { box.slots[key.stringValue] = .value(.double(value)) }
        mutating func encode(_ value: Float, forKey key: Key) { box.slots[key.stringValue] = .value(.double(value.bitExactDouble)) }
        mutating func encode(_ value: Int, forKey key: Key) { box.slots[key.stringValue] = .value(.int(Int64(value))) }
        mutating func encode(_ value: Int8, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode(_ value: Int16, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode(_ value: Int32, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode(_ value: Int64, forKey key: Key) { box.slots[key.stringValue] = .value(.int(value)) }
        mutating func encode(_ value: UInt, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode(_ value: UInt8, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode(_ value: UInt16, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode(_ value: UInt32, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode(_ value: UInt64, forKey key: Key) { box.slots[key.stringValue] = .value(integer(value)) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            box.slots[key.stringValue] = try SnapshotEncoding.box(value, codingPath: codingPath + [key], depth: depth + 1)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectBox()
            box.slots[key.stringValue] = .object(nested)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, codingPath: codingPath + [key], depth: depth + 1))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            box.slots[key.stringValue] = .array(nested)
            return UnkeyedContainer(box: nested, codingPath: codingPath + [key], depth: depth + 1)
        }

        mutating func superEncoder() -> any Swift.Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
        mutating func superEncoder(forKey key: Key) -> any Swift.Encoder {
            ReferencingEncoder(codingPath: codingPath + [key], depth: depth + 1) { [box] slot in box.slots[key.stringValue] = slot }
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let box: ArrayBox
        let codingPath: [any CodingKey]
        /// The level of the array; its elements are one deeper.
        let depth: Int
        var count: Int { box.slots.count }

        private var nextKey: any CodingKey { IndexKey(index: box.slots.count) }

        mutating func encodeNil() { box.slots.append(.value(.null)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            box.slots.append(try SnapshotEncoding.box(value, codingPath: codingPath + [nextKey], depth: depth + 1))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectBox()
            let path = codingPath + [nextKey]
            box.slots.append(.object(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, codingPath: path, depth: depth + 1))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            let path = codingPath + [nextKey]
            box.slots.append(.array(nested))
            return UnkeyedContainer(box: nested, codingPath: path, depth: depth + 1)
        }
        mutating func superEncoder() -> any Swift.Encoder {
            let index = box.slots.count
            box.slots.append(.value(.null))
            return ReferencingEncoder(codingPath: codingPath + [IndexKey(index: index)], depth: depth + 1) { [box] slot in box.slots[index] = slot }
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let encoder: Encoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() { encoder.slot = .value(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            // The single value takes the encoder's own place, at its level.
            encoder.slot = try SnapshotEncoding.box(value, codingPath: codingPath, depth: encoder.depth)
        }
    }

    /// A `superEncoder` that writes its result back into its parent when it is released.
    final class ReferencingEncoder: Swift.Encoder {
        let inner: Encoder
        let write: (Slot) -> Void
        var codingPath: [any CodingKey] { inner.codingPath }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        init(codingPath: [any CodingKey], depth: Int, write: @escaping (Slot) -> Void) {
            inner = Encoder(codingPath: codingPath, depth: depth)
            self.write = write
        }
        deinit { write(inner.slot ?? .value(.object([:]))) }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { inner.container(keyedBy: type) }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
        func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
    }
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    let index: Int
    init(index: Int) { self.index = index }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { index = intValue }
}
