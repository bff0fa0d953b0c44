import Foundation
import StoreProtocol

/// A value's text that is the same exactly when the values are equal by `SnapshotValue`'s
/// `==`: a key for a SQL store's unique column (or any index a database compares byte by byte)
/// that collides when, and only when, `SnapshotTable`'s unique constraints collide.
///
/// `SnapshotValue`'s `==` finds values equal that a database would store as different bytes,
/// and a database finds values equal that Swift does not:
///
/// - a `String` equals its canonical equivalents (`"café"` precomposed and with U+0301): the
///   key holds it in Unicode normalization form C;
/// - numbers compare by value across `.int`, `.unsigned` and `.double`: `-0.0` equals `0`, and
///   a whole `Double` equals the integer (`.double(3) == .int(3)`, `.double(0x1p63) ==
///   .unsigned(1 << 63)`), without rounding the integer (`2^53 + 1` is not `2^53`). The key writes every integral number as
///   its decimal digits and any other `Double` as its shortest round-trip spelling;
/// - a `Date` by its time interval (`-0.0` and `0.0` again), a `Decimal` by value (`1.0` equals
///   `1.00`, and Foundation's `Decimal.nan` equals itself);
/// - `Dictionary` keys are `String`s, so an `.object`'s names are compared by canonical
///   equivalence too: the key sorts them in NFC.
///
/// A value that holds a NaN (`Double`, or a `Date` whose interval is NaN) anywhere has no key
/// (`init` returns `nil`): it is `==` to no value, not even to a copy of itself, so it collides
/// with nothing, like SQL's `NULL` in a `UNIQUE` column. (An `Array` or `Dictionary` compared
/// with itself, the same storage, is `==` even with a NaN inside: Swift's collections look at
/// identity first. Two rows never share storage, so for keys of rows this does not arise.)
///
/// The text has no NUL character (PostgreSQL's `text` cannot hold one) and tells the kinds
/// apart (`.string("1")`, `.int(1)`, `.bool(true)` and `.date` of interval 1 all differ): `n`
/// for `nil`, `t`/`f`, `#` and a number, `"…"` for a string (`\"`, `\\` and `\0` escaped), `@`
/// and a number for a `Date`, `u` and the 36 characters of a `UUID`, `x` and hexadecimal digits
/// for `Data`, `m` and the digits of a `Decimal`, `[…]` and `{"name":…}` separated by commas.
/// Keys compare as text only for equality: their order means nothing.
///
/// `CanonicalKeyTests` checks over generated values (NaN, ±0, integers near `Int64.max` and
/// `UInt64.max` and their `Double`s, composed and decomposed strings, nested arrays and
/// objects) that two keys are equal exactly when the values are `==`.
public struct CanonicalKey: Sendable, Hashable, CustomStringConvertible {
    /// The key as text; equal texts mean `==` values.
    public let text: String

    /// The key of a value, or `nil` when it holds a NaN (then it equals no other value).
    /// - Complexity: O(*n*) in the size of the value, O(*n* log *n*) in an object's names;
    ///   a string that is not in NFC is normalized (Foundation's
    ///   `precomposedStringWithCanonicalMapping`).
    public init?(_ value: SnapshotValue) {
        var text = ""
        guard Self.append(value, to: &text) else { return nil }
        self.text = text
    }

    /// The key of the values of a unique constraint over several attributes, in the constraint's
    /// order (what `Schema.Entity.uniqueKey(_:in:)` returns): the key of them as an array.
    /// `nil` when one holds a NaN.
    public init?(_ values: [SnapshotValue]) {
        self.init(.array(values))
    }

    /// The key's text.
    public var description: String { text }

    /// Whether the texts have the same bytes: what a database compares, not `String`'s `==`
    /// (which would find canonical equivalents equal even if the key did not normalize them).
    public static func == (lhs: CanonicalKey, rhs: CanonicalKey) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    /// Hashes the text's bytes, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }

    /// Appends a value's spelling; `false` when it holds a NaN.
    private static func append(_ value: SnapshotValue, to text: inout String) -> Bool {
        switch value {
        case .null: text += "n"
        case .bool(let value): text += value ? "t" : "f"
        case .int(let value): text += "#\(value)"
        case .unsigned(let value): text += "#\(value)"
        case .double(let value):
            guard let number = number(value) else { return false }
            text += "#" + number
        case .string(let value): appendString(value, to: &text)
        case .date(let value):
            guard let number = number(value.timeIntervalSinceReferenceDate) else { return false }
            text += "@" + number
        case .uuid(let value): text += "u" + value.uuidString
        case .data(let value):
            text += "x"
            for byte in value { text += hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)] }
        case .decimal(let value): text += "m" + value.description
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                guard append(element, to: &text) else { return false }
            }
            text += "]"
        case .object(let members):
            text += "{"
            // Names that are canonically equivalent are one key of the dictionary: in NFC they
            // are one string, and distinct names stay distinct.
            let sorted = members.map { (name: normalized($0.key), value: $0.value) }
                .sorted { $0.name.unicodeScalars.lexicographicallyPrecedes($1.name.unicodeScalars) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { text += "," }
                appendString(member.name, to: &text)
                text += ":"
                guard append(member.value, to: &text) else { return false }
            }
            text += "}"
        }
        return true
    }

    private static let hexDigits = (0..<16).map { String($0, radix: 16) }

    /// A number's spelling: an integral value as its decimal digits (so that it matches the
    /// integer it equals, and `-0.0` is `0`), any other as its shortest round-trip spelling
    /// (which always has a `.`, an `e` or is `inf`), `nil` for NaN.
    private static func number(_ value: Double) -> String? {
        if value.isNaN { return nil }
        if let integer = Int64(exactly: value) { return String(integer) }
        if let integer = UInt64(exactly: value) { return String(integer) }
        return value.description
    }

    /// A string in NFC between quotes, with the quote, the backslash and NUL escaped.
    private static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in normalized(value).unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\0": text += "\\0"
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// A string in Unicode normalization form C (ASCII is, and is returned as it is).
    private static func normalized(_ value: String) -> String {
        value.utf8.allSatisfy { $0 < 0x80 } ? value : value.precomposedStringWithCanonicalMapping
    }
}
