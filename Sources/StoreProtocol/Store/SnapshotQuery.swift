import Foundation

/// Evaluates a ``FetchDescriptor`` over snapshots by materializing models, for stores that keep
/// snapshots and want to filter and sort themselves rather than throw
/// ``DataStoreError/preferInMemoryFilter``.
public enum SnapshotQuery {
    /// Filters, sorts and pages `snapshots` as `descriptor` says.
    /// - Throws: ``DataStoreError/Code/undecodableSnapshot`` when a snapshot does not decode as
    ///   `T`; ``DataStoreError/Code/invalidPredicate`` when the predicate throws.
    /// - Complexity: O(*n* log *n*) decodes and comparisons for *n* snapshots; O(*n*) without a sort.
    public static func evaluate<T: PersistentModel, S: DataStoreSnapshot>(
        _ descriptor: FetchDescriptor<T>, over snapshots: some Sequence<S>
    ) throws -> [S] {
        if descriptor.predicate == nil, descriptor.sortBy.isEmpty {
            return Array(descriptor.page(Array(snapshots)))
        }
        if let key = primaryKey(selectedBy: descriptor.predicate) {
            // `$0.id == value` holds exactly for the row with that primary key: no decoding.
            return Array(descriptor.page(snapshots.filter { $0.persistentIdentifier.primaryKey == key }))
        }
        var rows: [(snapshot: S, model: T)] = []
        for snapshot in snapshots {
            let model: T = try materialize(snapshot)
            if let predicate = descriptor.predicate, try !matches(predicate, model) { continue }
            rows.append((snapshot, model))
        }
        if !descriptor.sortBy.isEmpty {
            let sortBy = descriptor.sortBy
            rows.sort { inIncreasingOrder(sortBy, $0.model, $1.model) }
        }
        // A closure, not `\.snapshot`: a key path literal in generic code is built anew on each call.
        return descriptor.page(rows).map { $0.snapshot }
    }

    /// The snapshots a predicate selects, all of them when it is `nil`.
    public static func filter<T: PersistentModel, S: DataStoreSnapshot>(
        _ snapshots: [S], by predicate: Predicate<T>?
    ) throws -> [S] {
        guard let predicate else { return snapshots }
        return try snapshots.filter { try matches(predicate, try materialize($0) as T) }
    }

    /// The primary key a predicate names when it is exactly a comparison of `id` with a value
    /// (`#Predicate { $0.id == id }`, either way round, as `ModelContext.model(for:)` also
    /// builds), so that a store can look the row up instead of scanning; otherwise `nil`.
    ///
    /// The predicate still decides: a store may evaluate it on the row it finds.
    /// - Complexity: O(1).
    public static func primaryKey<T: PersistentModel>(selectedBy predicate: Predicate<T>?) -> SnapshotValue? {
        typealias Attribute = PredicateExpressions.KeyPath<PredicateExpressions.Variable<T>, T.ID>
        typealias Constant = PredicateExpressions.Value<T.ID>
        guard let expression = predicate?.expression else { return nil }
        func isID(_ attribute: Attribute) -> Bool { attribute.keyPath == ModelAttributes.of(T.self).idKeyPath }
        if let equal = expression as? PredicateExpressions.Equal<Attribute, Constant>, isID(equal.lhs) {
            return PersistentIdentifier.primaryKey(equal.rhs.value)
        }
        if let equal = expression as? PredicateExpressions.Equal<Constant, Attribute>, isID(equal.rhs) {
            return PersistentIdentifier.primaryKey(equal.lhs.value)
        }
        return nil
    }

    /// Decodes one snapshot as a `T`.
    /// - Throws: ``DataStoreError/Code/undecodableSnapshot`` naming the model and the cause.
    public static func materialize<T: PersistentModel>(_ snapshot: some DataStoreSnapshot) throws -> T {
        do {
            return try T(storedValues: snapshot.values)
        } catch {
            throw DataStoreError(.undecodableSnapshot,
                "The stored \(snapshot.persistentIdentifier) does not decode as \(T.self): \(error). "
                + "The stored data and the model type disagree; migrate the data or fix the model.")
        }
    }

    /// Whether `lhs` sorts before `rhs` by the first of `sortBy` that tells them apart.
    package static func inIncreasingOrder<T>(_ sortBy: [SortDescriptor<T>], _ lhs: T, _ rhs: T) -> Bool {
        for sort in sortBy {
            switch sort.compare(lhs, rhs) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return false
    }

    /// Evaluates a predicate, wrapping its errors.
    package static func matches<T>(_ predicate: Predicate<T>, _ model: T) throws -> Bool {
        do { return try predicate.evaluate(model) } catch {
            throw DataStoreError(.invalidPredicate, "The predicate could not be evaluated on \(T.self): \(error).")
        }
    }
}
