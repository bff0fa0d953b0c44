import Foundation
import StoreProtocol

/// An ordered index on one attribute of one entity: the rows' primary keys sorted by the
/// attribute's value, in the form a translated query compares it (`QueryAttribute/value(in:)`),
/// then by insertion order, and the same rows in a hash table by value. It answers equality
/// lookups (`attribute == constant` under `QueryComparison/equal`: integers exactly, `-0.0`
/// with `0.0`, strings by canonical equivalence, `nil` with `nil`), range lookups (`<`, `<=`, `>`, `>=` under the type's Swift
/// order) and walks in sort order (what a `SortDescriptor` on the attribute puts first).
///
/// A row whose stored value does not read as the attribute's type cannot be decided on stored
/// values (the query leaves it to the model), so every lookup returns it too, and no walk is
/// offered while there is one. A NaN is equal to nothing and ordered with nothing: lookups never
/// return it, and no walk is offered while there is one either. The index only narrows:
/// whoever uses it still evaluates the whole filter on the rows it returns.
struct AttributeIndex: Sendable {
    let attribute: QueryAttribute
    private var entries = SortedChunks<Entry>()
    /// The same rows by value, for equality lookups in O(1) rather than a binary search of
    /// string comparisons (measured: 5.6 µs against 11 µs for 1 of 1,000,000).
    private var buckets: [IndexKey: Bucket] = [:]
    /// The rows whose stored value does not read as the attribute's type.
    private(set) var unreadable: Set<SnapshotValue> = []
    /// The rows whose value is NaN.
    private var unordered: Set<SnapshotValue> = []

    /// One row: its key, then its insertion sequence, which orders rows with equal keys as the
    /// store does (and makes every entry distinct).
    struct Entry: Comparable, Sendable {
        let key: IndexKey
        let sequence: Int
        let primaryKey: SnapshotValue

        static func == (a: Entry, b: Entry) -> Bool { a.sequence == b.sequence && a.key == b.key }
        static func < (a: Entry, b: Entry) -> Bool { a.key < b.key || (a.key == b.key && a.sequence < b.sequence) }
    }

    /// The rows with one value; one row is kept without a set.
    private enum Bucket: Sendable {
        case one(SnapshotValue)
        case many(Set<SnapshotValue>)
    }

    /// One end of a range: a key, and whether the key itself is in.
    struct Bound: Sendable {
        var key: IndexKey
        var inclusive: Bool
    }

    init(_ attribute: QueryAttribute) {
        self.attribute = attribute
    }

    /// Adds a row; `sequence` orders it among rows with an equal value (insertion order).
    /// - Complexity: O(log *n*) and a move of at most one chunk (`SortedChunks`).
    mutating func insert(_ values: [String: SnapshotValue], primaryKey: SnapshotValue, sequence: Int) {
        guard let value = attribute.value(in: values) else {
            unreadable.insert(primaryKey)
            return
        }
        guard let key = IndexKey(value) else {
            if IndexKey.isNaN(value) { unordered.insert(primaryKey) }
            return
        }
        entries.insert(Entry(key: key, sequence: sequence, primaryKey: primaryKey))
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

    /// Removes a row, given the values and sequence it was added with.
    /// - Complexity: as `insert(_:primaryKey:sequence:)`.
    mutating func remove(_ values: [String: SnapshotValue], primaryKey: SnapshotValue, sequence: Int) {
        guard let value = attribute.value(in: values) else {
            unreadable.remove(primaryKey)
            return
        }
        guard let key = IndexKey(value) else {
            unordered.remove(primaryKey)
            return
        }
        entries.remove(Entry(key: key, sequence: sequence, primaryKey: primaryKey))
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

    // MARK: Equality

    /// The primary keys of the rows where the attribute may equal one of the constants (those
    /// where it does, and those whose value does not read as its type), stopping once there are
    /// more than `limit`; `nil` when one constant is not a canonical value of the attribute's
    /// type (then the index cannot answer for it) or when the limit was passed.
    /// - Complexity: O(*k* + *r*) for *k* constants and *r* rows returned.
    func primaryKeys(equalToAnyOf constants: [SnapshotValue], limit: Int = .max) -> [SnapshotValue]? {
        if constants.count == 1 { return primaryKeys(equalTo: constants[0], limit: limit) }
        var keys = Array(unreadable)
        var seen: Set<IndexKey> = []
        for constant in constants {
            guard let key = lookupKey(constant) else { return nil }
            guard let key, seen.insert(key).inserted else { continue }   // NaN: equal to nothing
            append(key, to: &keys)
            if keys.count > limit { return nil }
        }
        return keys
    }

    /// ``primaryKeys(equalToAnyOf:limit:)`` for one constant, without the set that keeps two
    /// equal constants from adding their rows twice (an allocation of every indexed equality fetch).
    /// - Complexity: O(*r*) for *r* rows returned.
    func primaryKeys(equalTo constant: SnapshotValue, limit: Int = .max) -> [SnapshotValue]? {
        guard let key = lookupKey(constant) else { return nil }
        var keys = Array(unreadable)
        guard let key else { return keys }   // NaN: equal to nothing
        append(key, to: &keys)
        return keys.count > limit ? nil : keys
    }

    /// Appends the primary keys of the rows whose value is `key`.
    private func append(_ key: IndexKey, to keys: inout [SnapshotValue]) {
        switch buckets[key] {
        case nil: break
        case .one(let primaryKey)?: keys.append(primaryKey)
        case .many(let primaryKeys)?: keys.append(contentsOf: primaryKeys)
        }
    }

    // MARK: Ranges

    /// The bound a comparison `attribute op constant` sets, as the lower or upper end of a range;
    /// `nil` when the constant is not a canonical value of the attribute's type, or is NaN
    /// (which the caller leaves to a scan: nothing is ordered with it).
    func bound(_ op: QueryComparison, _ constant: SnapshotValue) -> (lower: Bound?, upper: Bound?)? {
        guard case .some(.some(let key)) = lookupKey(constant), key != .null else { return nil }
        switch op {
        case .lessThan: return (nil, Bound(key: key, inclusive: false))
        case .lessThanOrEqual: return (nil, Bound(key: key, inclusive: true))
        case .greaterThan: return (Bound(key: key, inclusive: false), nil)
        case .greaterThanOrEqual: return (Bound(key: key, inclusive: true), nil)
        case .equal: return (Bound(key: key, inclusive: true), Bound(key: key, inclusive: true))
        case .notEqual: return nil
        }
    }

    /// The primary keys of the rows whose value may lie between `lower` and `upper` (those where
    /// it does, those holding `nil`, which a comparison leaves to the model, and those whose
    /// value does not read as the attribute's type); `nil` once there are more than `limit`.
    /// - Complexity: O(log *n* + *r*) for *r* rows returned.
    func primaryKeys(from lower: Bound?, to upper: Bound?, limit: Int = .max) -> [SnapshotValue]? {
        var keys = Array(unreadable)
        let null = Bound(key: .null, inclusive: true)
        guard collect(from: null, to: null, into: &keys, limit: limit),
              collect(from: lower ?? Bound(key: .null, inclusive: false), to: upper, into: &keys, limit: limit)
        else { return nil }
        return keys
    }

    /// Appends the keys of the entries from `lower` to `upper` (to the end when `upper` is
    /// `nil`); `false` once `keys` holds more than `limit`.
    private func collect(from lower: Bound, to upper: Bound?, into keys: inout [SnapshotValue], limit: Int) -> Bool {
        guard keys.count <= limit else { return false }
        var withinLimit = true
        entries.walkForward(from: { entry in lower.inclusive ? entry.key < lower.key : !(lower.key < entry.key) }) { entry in
            if let upper, upper.inclusive ? upper.key < entry.key : !(entry.key < upper.key) { return false }
            keys.append(entry.primaryKey)
            if keys.count > limit { withinLimit = false }
            return withinLimit
        }
        return withinLimit
    }

    // MARK: Sort order

    /// Whether `walk(descending:_:)` may be used: every row's value reads as the attribute's
    /// type and none is NaN, so the index holds every row in the order a sort puts them.
    var holdsEveryRowInOrder: Bool { unreadable.isEmpty && unordered.isEmpty && attribute.type != .bool }

    /// Calls `body` with each row's key and primary key in the order a `SortDescriptor` on the
    /// attribute puts them (`nil` first ascending, last descending; rows with equal values in
    /// insertion order either way), until `body` returns `false`. Only when
    /// `holdsEveryRowInOrder`.
    /// - Complexity: O(1) per row, and a buffer of the rows that share one value descending.
    func walk(descending: Bool, _ body: (IndexKey, SnapshotValue) -> Bool) {
        guard descending else {
            entries.walkForward { body($0.key, $0.primaryKey) }
            return
        }
        // Backwards, rows with one value come last-inserted first: hand each run on reversed.
        var run: [Entry] = []
        var stopped = false
        entries.walkBackward { entry in
            if let first = run.first, first.key != entry.key {
                for held in run.reversed() where !body(held.key, held.primaryKey) {
                    stopped = true
                    return false
                }
                run.removeAll(keepingCapacity: true)
            }
            run.append(entry)
            return true
        }
        guard !stopped else { return }
        for held in run.reversed() where !body(held.key, held.primaryKey) { return }
    }

    /// The key a constant is found under: `.some(nil)` for NaN (nothing equals it); `nil` when
    /// the constant is not a canonical value of the attribute's type, which a query's comparison
    /// would not decide on stored values either.
    private func lookupKey(_ constant: SnapshotValue) -> IndexKey?? {
        guard let canonical = attribute.type.canonicalValue(of: constant) else { return nil }
        if case .null = constant { return .some(.null) }
        // Only a constant already in canonical form, of the type's own case (a `.int` against a
        // `Double` attribute is not decided by the query's `==`, so not by the index).
        guard IndexKey.sameCase(canonical, constant) else { return nil }
        if IndexKey.isNaN(canonical) { return .some(nil) }
        guard let key = IndexKey(canonical), key == IndexKey(constant) else { return nil }
        return .some(key)
    }
}
