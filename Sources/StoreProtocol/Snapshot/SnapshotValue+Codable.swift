import Foundation

/// `SnapshotValue` is stored by on-disk backends and travels inside tokens and history, so it is
/// Codable. Plain JSON kinds (null, bool, number, string, array, object) are written as themselves,
/// which keeps a JSON store readable; kinds JSON cannot hold exactly are written as one-key objects
/// (see ``SnapshotTag`` for the list). An object whose own keys start with `$` is wrapped as
/// `{"$object": {…}}` so that it can never be mistaken for one of those.
///
/// The tagged forms are defined once, in ``SnapshotTag``; this conformance and ``SnapshotJSON``
/// both go through it, so the two read every text alike.
extension SnapshotValue: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        if let (tag, payload) = SnapshotTag.tagged(self) {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(payload, forKey: Key(tag.rawValue))
            return
        }
        switch self {
        case .null:
            var c = encoder.singleValueContainer(); try c.encodeNil()
        case .bool(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .int(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .double(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .string(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .array(let v):
            var c = encoder.unkeyedContainer()
            for element in v { try c.encode(element) }
        case .object(let v):
            var c = encoder.container(keyedBy: Key.self)
            if SnapshotTag.needsWrapping(v) {
                try c.encode(v, forKey: Key(SnapshotTag.object.rawValue))
            } else {
                for (key, value) in v { try c.encode(value, forKey: Key(key)) }
            }
        case .unsigned, .date, .uuid, .data, .decimal:
            // Always tagged (above).
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "No tagged form for \(self)."))
        }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            self = try Self.decodeObject(keyed)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [SnapshotValue] = []
            elements.reserveCapacity(unkeyed.count ?? 0)
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(SnapshotValue.self)) }
            self = .array(elements)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let v = try? c.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? c.decode(Int64.self) {
            self = .int(v)
        } else if let v = try? c.decode(Double.self) {
            self = .double(v)
        } else if let v = try? c.decode(String.self) {
            self = .string(v)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "Not a snapshot value.")
        }
    }

    private static func decodeObject(_ c: KeyedDecodingContainer<Key>) throws -> SnapshotValue {
        let keys = c.allKeys
        if let key = keys.first(where: { $0.stringValue.hasPrefix("$") }) {
            guard keys.count == 1, let tag = SnapshotTag(rawValue: key.stringValue) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: SnapshotTag.strayKeyReason(key.stringValue))
            }
            if tag == .object { return .object(try c.decode([String: SnapshotValue].self, forKey: key)) }
            do {
                return try SnapshotTag.value(tag, payload: try c.decode(SnapshotValue.self, forKey: key))
            } catch let error as SnapshotTag.Invalid {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.reason)
            }
        }
        var object: [String: SnapshotValue] = [:]
        object.reserveCapacity(keys.count)
        for key in keys { object[key.stringValue] = try c.decode(SnapshotValue.self, forKey: key) }
        return .object(object)
    }
}

/// The tagged JSON forms: one-key objects for what plain JSON cannot hold exactly. The one
/// definition that ``SnapshotJSON`` and `SnapshotValue`'s `Codable` conformance share.
///
/// | value | written as |
/// |---|---|
/// | `Date` whose seconds since 1970 give it back bit for bit | `{"$date": 1767225600.5}` |
/// | any other `Date` (exact: the seconds since 2001 `Date` holds) | `{"$date2001": 786918000.123}`, `{"$date2001": "nan"}` |
/// | `Double` NaN or infinity | `{"$double": "-inf"}`, `{"$double": "nan"}`, other NaNs by their bits `{"$double": "0x7ff4000000000001"}` |
/// | `UInt64` above `Int64.max` | `{"$uint": "18446744073709551615"}` |
/// | `UUID`, `Data` | `{"$uuid": "…"}`, `{"$data": "base64"}` |
/// | `Decimal` | `{"$decimal": "12.50"}`, `{"$decimal": "NaN"}` |
/// | an object with a key starting with `$` | `{"$object": {…}}` (its keys taken literally) |
///
/// Any other object with a `$` key is refused on reading: an unknown tag is a newer format or
/// damage, and reading it as a plain object would alter it.
enum SnapshotTag: String, Sendable {
    case date = "$date", date2001 = "$date2001", double = "$double", uuid = "$uuid", data = "$data"
    case decimal = "$decimal", unsigned = "$uint", object = "$object"

    /// Why a tagged object does not hold what its tag says.
    struct Invalid: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// `{"$tag":`, ready to append.
    var prefix: [UInt8] {
        switch self {
        case .date: Self.datePrefix
        case .date2001: Self.date2001Prefix
        case .double: Self.doublePrefix
        case .uuid: Self.uuidPrefix
        case .data: Self.dataPrefix
        case .decimal: Self.decimalPrefix
        case .unsigned: Self.unsignedPrefix
        case .object: Self.objectPrefix
        }
    }
    private static let datePrefix = Array("{\"$date\":".utf8), date2001Prefix = Array("{\"$date2001\":".utf8)
    private static let doublePrefix = Array("{\"$double\":".utf8), uuidPrefix = Array("{\"$uuid\":".utf8)
    private static let dataPrefix = Array("{\"$data\":".utf8), decimalPrefix = Array("{\"$decimal\":".utf8)
    private static let unsignedPrefix = Array("{\"$uint\":".utf8), objectPrefix = Array("{\"$object\":".utf8)

    /// Seconds from 1970 to 2001, Foundation's reference date.
    static let referenceOffset: Double = 978_307_200

    /// Whether an object must be wrapped in `$object` to read back as itself.
    @inline(__always)
    static func needsWrapping(_ object: [String: SnapshotValue]) -> Bool {
        object.keys.contains { $0.utf8.first == UInt8(ascii: "$") }
    }

    /// The tag and payload (a string or a finite number) for a value plain JSON cannot hold
    /// exactly; `nil` for one that is written as itself (objects are wrapped by the caller).
    static func tagged(_ value: SnapshotValue) -> (SnapshotTag, SnapshotValue)? {
        switch value {
        case .null, .bool, .int, .string, .array, .object: return nil
        case .double(let v): return v.isFinite ? nil : (.double, .string(nonFiniteText(v)))
        case .unsigned(let v): return (.unsigned, .string(String(v)))
        case .date(let v): return date(v)
        case .uuid(let v): return (.uuid, .string(v.uuidString))
        case .data(let v): return (.data, .string(v.base64EncodedString()))
        case .decimal(let v): return (.decimal, .string(v.description))
        }
    }

    /// `$date` (seconds since 1970, the form older versions wrote) when it gives the date back
    /// bit for bit, else `$date2001`, the seconds since 2001 that `Date` itself holds: about
    /// half of all `Date()` values lose their last bit on the way through 1970.
    @inline(__always)
    static func date(_ date: Date) -> (SnapshotTag, SnapshotValue) {
        let reference = date.timeIntervalSinceReferenceDate
        guard reference.isFinite else { return (.date2001, .string(nonFiniteText(reference))) }
        let since1970 = reference + referenceOffset
        if (since1970 - referenceOffset).bitPattern == reference.bitPattern { return (.date, .double(since1970)) }
        return (.date2001, .double(reference))
    }

    /// `inf`, `-inf`, `nan`, `-nan` (the NaNs Swift makes), else every bit: `0x7ff4000000000001`.
    /// (`Double.debugDescription` is not exact: it drops the top payload bit.)
    static func nonFiniteText(_ value: Double) -> String {
        switch value.bitPattern {
        case Double.infinity.bitPattern: return "inf"
        case (-Double.infinity).bitPattern: return "-inf"
        case Double.nan.bitPattern: return "nan"
        case (-Double.nan).bitPattern: return "-nan"
        default:
            let hex = String(value.bitPattern, radix: 16)
            return "0x" + String(repeating: "0", count: 16 - hex.count) + hex
        }
    }

    /// Reads what ``nonFiniteText(_:)`` writes, bit for bit; `nil` for anything else (finite numbers included).
    static func nonFinite(_ text: String) -> Double? {
        let result: Double
        switch text {
        case "inf": result = .infinity
        case "-inf": result = -.infinity
        case "nan": result = .nan
        case "-nan": result = -.nan
        default:
            guard text.utf8.count == 18, text.hasPrefix("0x"), let bits = UInt64(text.dropFirst(2), radix: 16) else { return nil }
            result = Double(bitPattern: bits)
        }
        return result.isFinite ? nil : result
    }

    /// Why an object with key `key` is refused.
    static func strayKeyReason(_ key: String) -> String {
        "an object with the key \"\(key)\" must be a one-key tagged value (\"$date\", \"$uuid\", \"$object\", …); "
            + "written by a newer version, or damaged"
    }

    /// The value a tagged object stands for (any tag but `$object`, whose payload is read literally).
    /// - Throws: ``Invalid`` when the payload is not of the tag's form.
    static func value(_ tag: SnapshotTag, payload: SnapshotValue) throws(Invalid) -> SnapshotValue {
        switch (tag, payload) {
        case (.date, .int(let seconds)): return .date(Date(timeIntervalSince1970: Double(seconds)))
        case (.date, .double(let seconds)) where seconds.isFinite: return .date(Date(timeIntervalSince1970: seconds))
        case (.date2001, .int(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.date2001, .double(let seconds)) where seconds.isFinite: return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.date2001, .string(let text)):
            guard let seconds = nonFinite(text) else { throw Invalid(reason: "a $date2001 string must be inf, -inf or nan, not \(text)") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.double, .string(let text)):
            guard let number = nonFinite(text) else { throw Invalid(reason: "a $double must be inf, -inf or nan, not \(text)") }
            return .double(number)
        case (.uuid, .string(let text)):
            guard let uuid = SnapshotJSON.uuid(text) else { throw Invalid(reason: "not a UUID: \(text)") }
            return .uuid(uuid)
        case (.data, .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw Invalid(reason: "a $data is not base64") }
            return .data(data)
        case (.decimal, .string(let text)):
            if text == "NaN" { return .decimal(.nan) }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw Invalid(reason: "not a decimal: \(text)")
            }
            return .decimal(decimal)
        case (.unsigned, .string(let text)):
            guard let number = UInt64(text) else { throw Invalid(reason: "not an unsigned integer: \(text)") }
            return .unsigned(number)
        case (.date, _), (.date2001, _): throw Invalid(reason: "a \(tag.rawValue) must be a number, not \(payload)")
        case (.object, _): throw Invalid(reason: "a $object must hold an object, not \(payload)")
        default: throw Invalid(reason: "a \(tag.rawValue) must be a string, not \(payload)")
        }
    }
}
