import Foundation

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
package enum SnapshotTag: String, Sendable {
    case date = "$date", date2001 = "$date2001", double = "$double", uuid = "$uuid", data = "$data"
    case decimal = "$decimal", unsigned = "$uint", object = "$object"

    /// Why a tagged object does not hold what its tag says.
    package struct Invalid: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// `{"$tag":`, ready to append.
    package var prefix: [UInt8] {
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
    package static let referenceOffset: Double = 978_307_200

    /// Whether an object must be wrapped in `$object` to read back as itself.
    @inline(__always)
    package static func needsWrapping(_ object: [String: SnapshotValue]) -> Bool {
        object.keys.contains { $0.utf8.first == UInt8(ascii: "$") }
    }

    /// The tag and payload (a string or a finite number) for a value plain JSON cannot hold
    /// exactly; `nil` for one that is written as itself (objects are wrapped by the caller).
    package static func tagged(_ value: SnapshotValue) -> (SnapshotTag, SnapshotValue)? {
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
    package static func date(_ date: Date) -> (SnapshotTag, SnapshotValue) {
        let reference = date.timeIntervalSinceReferenceDate
        guard reference.isFinite else { return (.date2001, .string(nonFiniteText(reference))) }
        let since1970 = reference + referenceOffset
        if (since1970 - referenceOffset).bitPattern == reference.bitPattern { return (.date, .double(since1970)) }
        return (.date2001, .double(reference))
    }

    /// `inf`, `-inf`, `nan`, `-nan` (the NaNs Swift makes), else every bit: `0x7ff4000000000001`.
    /// (`Double.debugDescription` is not exact: it drops the top payload bit.)
    package static func nonFiniteText(_ value: Double) -> String {
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
    package static func nonFinite(_ text: String) -> Double? {
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
    package static func strayKeyReason(_ key: String) -> String {
        "an object with the key \"\(key)\" must be a one-key tagged value (\"$date\", \"$uuid\", \"$object\", …); "
            + "written by a newer version, or damaged"
    }

    /// The value a tagged object stands for (any tag but `$object`, whose payload is read literally).
    /// - Throws: ``Invalid`` when the payload is not of the tag's form.
    package static func value(_ tag: SnapshotTag, payload: SnapshotValue) throws(Invalid) -> SnapshotValue {
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
            guard let uuid = uuid(text) else { throw Invalid(reason: "not a UUID: \(text)") }
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

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (either case) directly: `UUID(uuidString:)`
    /// on Linux goes through `sscanf` and was a quarter of the time of opening a 100,000-row store.
    package static func uuid(_ text: String) -> UUID? {
        var bytes = [UInt8](repeating: 0, count: 16)
        var index = 0, high: UInt8? = nil, position = 0
        for character in text.utf8 {
            defer { position += 1 }
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            guard index < 16 else { return nil }
            if let first = high {
                bytes[index] = first << 4 | nibble
                index += 1
                high = nil
            } else {
                high = nibble
            }
        }
        guard position == 36, index == 16 else { return nil }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
