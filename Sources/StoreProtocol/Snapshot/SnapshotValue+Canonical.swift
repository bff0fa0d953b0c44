import Foundation

extension SnapshotValue {
    /// One spelling for every class of values that `==` finds equal, for a store that keys
    /// rows by a value's bytes (a text column, a hash, a file name): two values are `==` exactly
    /// when their canonical forms encode to the same bytes.
    ///
    /// - Strings (and dictionary keys) in Unicode normalization form C: `"café"` precomposed and
    ///   decomposed are equal in Swift.
    /// - A whole `Double` as the integer it equals (``int(_:)``, or ``unsigned(_:)`` above
    ///   `Int64.max`), which folds `-0.0` into `0`; a small ``unsigned(_:)`` as ``int(_:)``.
    /// - A `Date` at zero without the sign of `-0.0`.
    ///
    /// Every other value is its own canonical form (`NaN` is equal to nothing, itself included).
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
        case .array(let elements): return .array(elements.map(\.canonical))
        case .object(let members):
            return .object(Dictionary(members.map { (Self.normalized($0.key), $0.value.canonical) }, uniquingKeysWith: { first, _ in first }))
        case .null, .bool, .int, .uuid, .data, .decimal: return self
        }
    }

    /// A string in normalization form C; an ASCII string (already in it) without a copy.
    private static func normalized(_ string: String) -> String {
        string.utf8.allSatisfy { $0 < 0x80 } ? string : string.precomposedStringWithCanonicalMapping
    }
}
