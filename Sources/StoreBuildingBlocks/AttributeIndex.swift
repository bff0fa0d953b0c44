import Foundation
import StoreProtocol

/// An equality index on one attribute of one entity: the primary keys of its rows by the
/// attribute's value, in the form a translated query compares it (``QueryAttribute/value(in:)``),
/// so that a lookup finds exactly the rows where `attribute == constant` is `true` under
/// ``QueryComparison/equal``: integers exactly, `-0.0` with `0.0`, strings by canonical
/// equivalence, `nil` with `nil`. A NaN is equal to nothing, so it is not kept.
///
/// A row whose stored value does not read as the attribute's type cannot be decided on stored
/// values (the query leaves it to the model), so every lookup returns it too. The index only
/// narrows: whoever uses it still evaluates the whole filter on the rows it returns.
struct AttributeIndex: Sendable {
    let attribute: QueryAttribute
    /// Primary keys by value; one row per value is kept without a set.
    private var buckets: [IndexKey: Bucket] = [:]
    /// The rows whose stored value does not read as the attribute's type.
    private(set) var unreadable: Set<SnapshotValue> = []

    private enum Bucket: Sendable {
        case one(SnapshotValue)
        case many(Set<SnapshotValue>)

        var count: Int {
            switch self {
            case .one: return 1
            case .many(let keys): return keys.count
            }
        }
    }

    init(_ attribute: QueryAttribute) {
        self.attribute = attribute
    }

    /// Adds a row.
    /// - Complexity: O(1) amortized.
    mutating func insert(_ values: [String: SnapshotValue], primaryKey: SnapshotValue) {
        guard let value = attribute.value(in: values) else {
            unreadable.insert(primaryKey)
            return
        }
        guard let key = IndexKey(value) else { return }   // NaN: equal to nothing
        switch buckets[key] {
        case nil: buckets[key] = .one(primaryKey)
        case .one(let other)?:
            buckets[key] = other == primaryKey ? .one(other) : .many([other, primaryKey])
        case .many(var keys)?:
            buckets[key] = nil   // so that the set is not copied
            keys.insert(primaryKey)
            buckets[key] = .many(keys)
        }
    }

    /// Removes a row, given the values it was added with.
    /// - Complexity: O(1) amortized.
    mutating func remove(_ values: [String: SnapshotValue], primaryKey: SnapshotValue) {
        guard let value = attribute.value(in: values) else {
            unreadable.remove(primaryKey)
            return
        }
        guard let key = IndexKey(value) else { return }
        switch buckets.removeValue(forKey: key) {
        case nil: return
        case .one(let other)?:
            if other != primaryKey { buckets[key] = .one(other) }
        case .many(var keys)?:
            keys.remove(primaryKey)
            if keys.count == 1, let last = keys.first {
                buckets[key] = .one(last)
            } else if !keys.isEmpty {
                buckets[key] = .many(keys)
            }
        }
    }

    /// How many rows a lookup of each constant would return, or `nil` when one of them is not a
    /// canonical value of the attribute's type (then the index cannot answer for it).
    /// - Complexity: O(*k*) for *k* constants.
    func count(of constants: [SnapshotValue]) -> Int? {
        var total = unreadable.count
        for constant in constants {
            guard let key = lookupKey(constant) else { return nil }
            total += key.flatMap { buckets[$0]?.count } ?? 0
        }
        return total
    }

    /// The primary keys of the rows where the attribute may equal one of the constants (those
    /// where it does, and those whose value does not read as its type). Call only after
    /// ``count(of:)`` answered.
    /// - Complexity: O(*k* + *r*) for *k* constants and *r* rows returned.
    func primaryKeys(equalToAnyOf constants: [SnapshotValue], into keys: inout [SnapshotValue]) {
        keys.append(contentsOf: unreadable)
        var seen: Set<IndexKey> = []
        for constant in constants {
            guard let key = lookupKey(constant) ?? nil, seen.insert(key).inserted else { continue }
            switch buckets[key] {
            case nil: break
            case .one(let primaryKey)?: keys.append(primaryKey)
            case .many(let primaryKeys)?: keys.append(contentsOf: primaryKeys)
            }
        }
    }

    /// The key a constant is found under: `.some(nil)` for NaN (nothing equals it); `nil` when
    /// the constant is not a canonical value of the attribute's type, which a query's equality
    /// would not decide on stored values either.
    private func lookupKey(_ constant: SnapshotValue) -> IndexKey?? {
        guard let canonical = attribute.type.canonicalValue(of: constant) else { return nil }
        if case .null = constant { return .some(.null) }
        // Only a constant already in canonical form, of the type's own case (a `.int` against a
        // `Double` attribute is not decided by the query's `==`, so not by the index).
        guard IndexKey.sameCase(canonical, constant) else { return nil }
        if case .double(let v) = canonical, v.isNaN { return .some(nil) }
        if case .date(let d) = canonical, d.timeIntervalSinceReferenceDate.isNaN { return .some(nil) }
        guard let key = IndexKey(canonical), key == IndexKey(constant) else { return nil }
        return .some(key)
    }
}

/// A canonical query value as a dictionary key whose `==` and hashing are
/// ``QueryComparison/equal``'s: exact integers (``SnapshotValue``'s own `==` compares numbers
/// through `Double`), IEEE equality of doubles without NaN (`-0.0 == 0.0`, hashed alike),
/// Swift's `String` equality (canonical equivalence, hashed alike).
enum IndexKey: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case date(Double)
    case uuid(UUID)

    /// `nil` for NaN (equal to nothing) and for kinds a query does not compare.
    init?(_ value: SnapshotValue) {
        switch value {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .unsigned(let v): self = .unsigned(v)
        case .double(let v):
            guard !v.isNaN else { return nil }
            self = .double(v)
        case .string(let v): self = .string(v)
        case .date(let v):
            guard !v.timeIntervalSinceReferenceDate.isNaN else { return nil }
            self = .date(v.timeIntervalSinceReferenceDate)
        case .uuid(let v): self = .uuid(v)
        case .data, .decimal, .array, .object: return nil
        }
    }

    /// Whether two values are of the same ``SnapshotValue`` case.
    static func sameCase(_ a: SnapshotValue, _ b: SnapshotValue) -> Bool {
        switch (a, b) {
        case (.null, .null), (.bool, .bool), (.int, .int), (.unsigned, .unsigned), (.double, .double),
             (.string, .string), (.date, .date), (.uuid, .uuid): return true
        default: return false
        }
    }
}
