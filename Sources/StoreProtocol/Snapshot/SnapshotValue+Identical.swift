import Foundation

extension SnapshotValue {
    /// Whether `self` and `other` read back as the same value, bit for bit: what a save must
    /// compare to decide that an attribute did not change. `==` is the wrong test there: it finds
    /// -0 equal to 0 and a string equal to its canonically equivalent other spelling ("é" as one
    /// scalar or as "e" and a combining accent), so a set from one to the other would be saved as
    /// no change and read back as the value before. Doubles and dates compare by their bits (a NaN
    /// is then identical to itself, where `==` calls it changed at every save), strings by their
    /// UTF-8 bytes, arrays and objects element by element; values of different cases (an integer
    /// read back for a whole double) and the other cases compare with `==`.
    /// - Complexity: O(*n*) in the size of the value.
    public func isIdentical(to other: SnapshotValue) -> Bool {
        switch (self, other) {
        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern
        case let (.date(a), .date(b)): return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case let (.string(a), .string(b)): return Self.sameUTF8(a, b)
        case let (.array(a), .array(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case let (.object(a), .object(b)):
            return a.count == b.count && a.allSatisfy { name, value in b[name].map(value.isIdentical) ?? false }
        default: return self == other
        }
    }

    /// Whether two strings hold the same UTF-8 bytes (not only canonically equivalent ones).
    private static func sameUTF8(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { a in b.withUTF8 { b in a.count == b.count && a.elementsEqual(b) } }
    }
}
