import Foundation
import StoreProtocol

/// Whether two snapshot values are the same bit for bit: floating point and dates by bit pattern,
/// strings and keys by Unicode scalars (Swift's `==` on strings is canonical equivalence), numbers
/// of different cases unequal (`SnapshotValue`'s own `==` is numeric and NaN-blind).
public func sameBits(_ a: SnapshotValue, _ b: SnapshotValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.bool(x), .bool(y)): return x == y
    case let (.int(x), .int(y)): return x == y
    case let (.unsigned(x), .unsigned(y)): return x == y
    case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
    case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
    case let (.date(x), .date(y)): return x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
    case let (.uuid(x), .uuid(y)): return x == y
    case let (.data(x), .data(y)): return x == y
    case let (.decimal(x), .decimal(y)): return x.isNaN ? y.isNaN : x == y
    case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { sameBits($0, $1) }
    case let (.object(x), .object(y)):
        guard x.count == y.count else { return false }
        // Keys by scalars: Swift's String `==` (and so a dictionary lookup) is canonical equivalence.
        let scalarKeys = Dictionary(y.map { (Array($0.key.unicodeScalars), $0.value) }, uniquingKeysWith: { first, _ in first })
        return x.allSatisfy { key, value in scalarKeys[Array(key.unicodeScalars)].map { sameBits(value, $0) } ?? false }
    default: return false
    }
}
