import Foundation

extension SnapshotValue {
    /// One spelling for every class of values that `==` finds equal, for a store that keys
    /// rows by a value's bytes (a text column, a hash, a file name): two values without a NaN
    /// are `==` exactly when their canonical forms encode to the same bytes. The one place these
    /// rules live: `CanonicalKey` and every store's keys are built on it.
    ///
    /// - Strings (and dictionary keys) in Unicode normalization form C: `"café"` precomposed and
    ///   decomposed are equal in Swift.
    /// - A whole `Double` as the integer it equals (``int(_:)``, or ``unsigned(_:)`` above
    ///   `Int64.max`), which folds `-0.0` into `0`; a small ``unsigned(_:)`` as ``int(_:)``.
    /// - A `Date` at zero without the sign of `-0.0`.
    /// - A `Decimal` by value: `1.0` and `1.00` are one `Decimal`, spelt `1`.
    ///
    /// Every other value is its own canonical form. A value holding a NaN (``holdsNaN``) is
    /// equal to nothing, itself included, whatever its canonical form: a key that must collide
    /// exactly when values are `==` gives it none.
    /// - Complexity: O(*n*) in the value's size; a value without strings or doubles is returned
    ///   as it is after one look at each element.
    public var canonical: SnapshotValue {
        switch self {
        case .string(let string): return .string(Self.normalized(string))
        case .double(let double):
            if let integer = Int64(exactly: double) { return .int(integer) }
            if let unsigned = UInt64(exactly: double) { return .unsigned(unsigned) }
            return self
        case .unsigned(let unsigned):
            return Int64(exactly: unsigned).map(SnapshotValue.int) ?? self
        case .date(let date):
            // -0.0 + 0.0 is +0.0; every other interval is unchanged.
            return .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate + 0.0))
        case .decimal(let decimal): return .decimal(Self.compacted(decimal))
        case .array(let elements): return .array(elements.map(\.canonical))
        case .object(let members):
            return .object(Dictionary(members.map { (Self.normalized($0.key), $0.value.canonical) }, uniquingKeysWith: { first, _ in first }))
        case .null, .bool, .int, .uuid, .data: return self
        }
    }

    /// Whether a NaN (a `Double`, or a `Date` whose interval is NaN) is anywhere in the value:
    /// then it is `==` to no value, not even to a copy of itself, so a unique key of it collides
    /// with nothing, like SQL's `NULL`. (Foundation's `Decimal.nan` equals itself: not a NaN here.
    /// An `Array` compared with itself, the same storage, is `==` even with a NaN inside, as
    /// Swift's collections look at identity first; two rows never share storage.)
    /// - Complexity: O(*n*) in the value's size.
    public var holdsNaN: Bool {
        switch self {
        case .double(let double): double.isNaN
        case .date(let date): date.timeIntervalSinceReferenceDate.isNaN
        case .array(let elements): elements.contains { $0.holdsNaN }
        case .object(let members): members.values.contains { $0.holdsNaN }
        case .null, .bool, .int, .unsigned, .string, .uuid, .data, .decimal: false
        }
    }

    /// A string in normalization form C; an ASCII string (already in it) without a copy.
    private static func normalized(_ string: String) -> String {
        string.utf8.allSatisfy { $0 < 0x80 } ? string : string.precomposedStringWithCanonicalMapping
    }

    /// A `Decimal` whose `description` (what every encoder writes) is its value's one spelling:
    /// without trailing fractional zeros, and `0` for a negative zero. (Foundation on Linux keeps
    /// decimals compact already; one built with trailing zeros in its mantissa elsewhere would
    /// otherwise write `1.00` for the `1` it equals.)
    private static func compacted(_ decimal: Decimal) -> Decimal {
        if decimal.isNaN { return decimal }
        if decimal.isZero { return 0 }
        let text = decimal.description
        guard text.contains("."), text.hasSuffix("0") else { return decimal }
        var digits = Substring(text)
        while digits.hasSuffix("0") { digits = digits.dropLast() }
        if digits.hasSuffix(".") { digits = digits.dropLast() }
        return Decimal(string: String(digits), locale: Locale(identifier: "en_US_POSIX")) ?? decimal
    }
}
