import Foundation
import StoreProtocol

/// A value's text that is the same exactly when the values are equal by `SnapshotValue`'s
/// `==`: a key for a SQL store's unique column (or any index a database compares byte by byte)
/// that collides when, and only when, `SnapshotTable`'s unique constraints collide.
///
/// The text spells the value's canonical form (`SnapshotValue.canonical`, where the rules of
/// which spellings `==` finds equal live: strings and object names in NFC, a whole `Double` as
/// its integer, `-0.0` as `0`, a `Decimal` by value, …); this type adds only the two things a
/// text key needs besides:
///
/// - A value that holds a NaN anywhere (`SnapshotValue.holdsNaN`) has no key (`init` returns
///   `nil`): it is `==` to no value, not even to a copy of itself, so it collides with nothing,
///   like SQL's `NULL` in a `UNIQUE` column.
/// - The text has no NUL character (PostgreSQL's `text` cannot hold one) and tells the kinds
///   apart (`.string("1")`, `.int(1)`, `.bool(true)` and `.date` of interval 1 all differ): `n`
///   for `nil`, `t`/`f`, `#` and a number, `"…"` for a string (`\"`, `\\` and `\0` escaped), `@`
///   and a number for a `Date`, `u` and the 36 characters of a `UUID`, `x` and hexadecimal digits
///   for `Data`, `m` and the digits of a `Decimal`, `[…]` and `{"name":…}` (names sorted)
///   separated by commas. Keys compare as text only for equality: their order means nothing.
///
/// `CanonicalKeyTests` checks over generated values (NaN, ±0, integers near `Int64.max` and
/// `UInt64.max` and their `Double`s, composed and decomposed strings, nested arrays and
/// objects) that two keys are equal exactly when the values are `==`.
public struct CanonicalKey: Sendable, Hashable, CustomStringConvertible {
    /// The key as text; equal texts mean `==` values.
    public let text: String

    /// The key of a value, or `nil` when it holds a NaN (then it equals no other value).
    /// - Complexity: O(*n*) in the size of the value, O(*n* log *n*) in an object's names, and
    ///   what `SnapshotValue.canonical` costs (a string not in NFC is normalized).
    public init?(_ value: SnapshotValue) {
        guard !value.holdsNaN else { return nil }
        var text = ""
        Self.append(value.canonical, to: &text)
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

    /// Appends the spelling of a canonical value without NaN.
    private static func append(_ value: SnapshotValue, to text: inout String) {
        switch value {
        case .null: text += "n"
        case .bool(let value): text += value ? "t" : "f"
        // Canonical: an integral number is an `.int` or `.unsigned`, any other `Double` has a
        // `.`, an `e` or is `inf` in its shortest round-trip spelling.
        case .int(let value): text += "#\(value)"
        case .unsigned(let value): text += "#\(value)"
        case .double(let value): text += "#\(value)"
        case .string(let value): appendString(value, to: &text)
        case .date(let value): text += "@\(value.timeIntervalSinceReferenceDate)"
        case .uuid(let value): text += "u" + value.uuidString
        case .data(let value):
            text += "x"
            for byte in value { text += hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)] }
        case .decimal(let value): text += "m" + value.description
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                append(element, to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            let sorted = members.sorted { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { text += "," }
                appendString(member.key, to: &text)
                text += ":"
                append(member.value, to: &text)
            }
            text += "}"
        }
    }

    private static let hexDigits = (0..<16).map { String($0, radix: 16) }

    /// A string between quotes, with the quote, the backslash and NUL escaped.
    private static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\0": text += "\\0"
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
