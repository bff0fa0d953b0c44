import Foundation
import StoreProtocol

/// Answers a `DataStoreFetchRequest` over snapshots in memory from its `FetchQuery`: the
/// translated predicate is evaluated on stored values (no model is decoded for a row it
/// decides), the translated sort compares stored values, and a limit with a sort keeps only the
/// best rows (a bounded heap, not a full sort). What did not translate is decided as
/// `SnapshotQuery` decides it, on decoded models; the results are the same either way.
///
/// `MemoryStore` and `JSONStore` use it through ``SnapshotTableStore``, `LogStore` directly.
public enum QueryEvaluator {
    /// The snapshots `request` selects from `rows`, sorted and paged.
    /// - Throws: `DataStoreError/Code/undecodableSnapshot` when a row the predicate or sort must
    ///   decide on its model does not decode; `DataStoreError/Code/invalidPredicate` when the
    ///   predicate throws.
    /// - Complexity: O(*n*) evaluations of the translated predicate for *n* rows, then
    ///   O(*m* log *k*) comparisons for *m* matches and a limit *k* (with the offset), or
    ///   O(*m* log *m*) without a limit. An untranslated predicate or sort decodes every row it
    ///   concerns.
    public static func fetch<T: PersistentModel, S: DataStoreSnapshot>(
        _ request: DataStoreFetchRequest<T>, over rows: some Collection<S>
    ) throws -> [S] {
        let query = request.query, descriptor = request.descriptor
        // Unsorted, the first offset + limit matches are the page: stop there, unless the
        // predicate runs on models, where a later row could throw (as it would on models).
        var enough = Int.max
        if case .unsorted = query.sort, let limit = descriptor.fetchLimit {
            switch query.filter {
            case .all, .expression: enough = max(0, descriptor.fetchOffset ?? 0) &+ max(0, limit)
            case .narrowed, .untranslated: break
            }
        }
        let filter = Filter(query.filter, descriptor.predicate)
        if case .keys(let keys) = query.sort, let limit = descriptor.fetchLimit {
            let start = max(0, descriptor.fetchOffset ?? 0)
            if let best = try best(start &+ max(0, limit), of: rows, filter, keys) {
                return best.dropFirst(start).map { $0.snapshot }
            }
        }
        var matched: [Row<S, T>] = []
        if enough > 0 {
            for snapshot in rows {
                guard let row = try filter.select(snapshot) else { continue }
                matched.append(row)
                if matched.count >= enough { break }
            }
        }
        switch query.sort {
        case .unsorted:
            return descriptor.page(matched).map { $0.snapshot }
        case .keys(let keys):
            if let sorted = sortedByStoredValues(matched, keys, offset: descriptor.fetchOffset, limit: descriptor.fetchLimit) {
                return sorted
            }
            return try sortedByModels(matched, descriptor)
        case .untranslated:
            return try sortedByModels(matched, descriptor)
        }
    }

    /// How many snapshots `request` selects from `rows` (with its offset and limit).
    /// - Throws: as `fetch(_:over:)`.
    /// - Complexity: O(*n*) evaluations of the translated predicate, no sorting and no decoding
    ///   for rows it decides.
    public static func count<T: PersistentModel, S: DataStoreSnapshot>(
        _ request: DataStoreFetchRequest<T>, over rows: some Sequence<S>
    ) throws -> Int {
        let descriptor = request.descriptor
        let filter = Filter(request.query.filter, descriptor.predicate)
        var count = 0
        for snapshot in rows where try filter.select(snapshot) != nil { count += 1 }
        let offset = max(0, descriptor.fetchOffset ?? 0)
        let remaining = max(0, count - offset)
        return descriptor.fetchLimit.map { min(remaining, max(0, $0)) } ?? remaining
    }

    // MARK: Filtering

    /// A selected row, with its model when the predicate had to decode it.
    struct Row<S: DataStoreSnapshot, T: PersistentModel> {
        let snapshot: S
        var model: T?

        mutating func decoded() throws -> T {
            if let model { return model }
            let made: T = try SnapshotQuery.materialize(snapshot)
            model = made
            return made
        }
    }

    /// The query's filter, ready to run on rows.
    struct Filter<T: PersistentModel> {
        private enum Kind {
            case all
            case exact(CompiledQueryExpression)
            case narrowed(CompiledQueryExpression)
            case models
        }
        private let kind: Kind
        private let predicate: Predicate<T>?

        init(_ filter: FetchQuery.Filter, _ predicate: Predicate<T>?) {
            self.predicate = predicate
            switch filter {
            case .all: kind = predicate == nil ? .all : .models   // .all comes only without a predicate
            case .expression(let expression): kind = .exact(CompiledQueryExpression(expression))
            case .narrowed(let expression, _): kind = .narrowed(CompiledQueryExpression(expression))
            case .untranslated: kind = .models
            }
        }

        /// The row when it matches, `nil` when not.
        func select<S: DataStoreSnapshot>(_ snapshot: S) throws -> Row<S, T>? {
            var row = Row<S, T>(snapshot: snapshot)
            switch kind {
            case .all: return row
            case .exact(let expression):
                switch expression.matches(snapshot.values) {
                case true?: return row
                case false?: return nil
                case nil: break   // the stored values cannot tell: the model decides
                }
            case .narrowed(let expression):
                if expression.matches(snapshot.values) == false { return nil }
            case .models: break
            }
            guard let predicate else { return row }
            return try SnapshotQuery.matches(predicate, try row.decoded()) ? row : nil
        }
    }

    // MARK: Sorting

    /// The page of `rows` sorted by stored values; `nil` when a row's stored value does not
    /// read as its attribute's type (the models must decide).
    static func sortedByStoredValues<S, T>(
        _ rows: [Row<S, T>], _ keys: [QuerySortKey], offset: Int?, limit: Int?
    ) -> [S]? {
        var keyed: [(index: Int, values: [SnapshotValue])] = []
        keyed.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            var values: [SnapshotValue] = []
            values.reserveCapacity(keys.count)
            for key in keys {
                guard let value = key.attribute.value(in: row.snapshot.values) else { return nil }
                values.append(value)
            }
            keyed.append((index, values))
        }
        func compare(_ a: [SnapshotValue], _ b: [SnapshotValue]) -> ComparisonResult {
            for (index, key) in keys.enumerated() {
                let result = key.compare(a[index], b[index]) ?? .orderedSame
                if result != .orderedSame { return result }
            }
            return .orderedSame
        }
        let start = max(0, offset ?? 0)
        // The same sort, with the same comparisons, as the models' sort: the same order even
        // when NaN makes the comparisons inconsistent.
        keyed.sort { compare($0.values, $1.values) == .orderedAscending }
        let end = limit.map { min(keyed.count, start &+ max(0, $0)) } ?? keyed.count
        guard start < end else { return [] }
        return keyed[start..<end].map { rows[$0.index].snapshot }
    }

    /// The first `k` rows the filter selects in the keys' order (ties by position), through
    /// ``TopRows``. `nil` when a selected row's sort value does not read as its type or is NaN:
    /// the order is then the one a full sort gives (see
    /// `sortedByStoredValues(_:_:offset:limit:)`), which depends on every row.
    /// - Complexity: O(*n*) filter evaluations and O(*m* log *k*) comparisons for *m* rows that
    ///   could enter.
    static func best<S: DataStoreSnapshot, T: PersistentModel>(
        _ k: Int, of rows: some Collection<S>, _ filter: Filter<T>, _ keys: [QuerySortKey]
    ) throws -> [Row<S, T>]? {
        guard k > 0 else { return [] }
        guard var top = TopRows<Row<S, T>>(k, by: keys) else { return nil }
        for (position, snapshot) in rows.enumerated() {
            guard let row = try filter.select(snapshot) else { continue }
            let values = row.snapshot.values
            guard top.offer(position: position, { keys[$0].attribute.value(in: values) }, payload: row) else { return nil }
        }
        return top.rows
    }

    /// The page of `rows` sorted on their models by the descriptor's `SortDescriptor`s, as
    /// `SnapshotQuery` sorts.
    static func sortedByModels<S, T>(_ rows: [Row<S, T>], _ descriptor: FetchDescriptor<T>) throws -> [S] {
        var models: [(snapshot: S, model: T)] = []
        models.reserveCapacity(rows.count)
        for var row in rows { models.append((row.snapshot, try row.decoded())) }
        let sortBy = descriptor.sortBy
        models.sort { SnapshotQuery.inIncreasingOrder(sortBy, $0.model, $1.model) }
        return descriptor.page(models).map { $0.snapshot }
    }
}
