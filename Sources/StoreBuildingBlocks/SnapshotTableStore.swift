import StoreProtocol

/// A store that keeps its rows in a ``SnapshotTable`` and its history in a ``HistoryLog``, in
/// memory (as `MemoryStore` and `JSONStore` do). Conforming gives it `fetch`, `fetchCount`,
/// `fetchHistory` and `currentHistoryToken`, written once here; it provides the way to read its
/// current rows and history, and its own `save`, `erase` and `deleteHistory`.
///
/// ```swift
/// final class MyStore: SnapshotTableStore {
///     func withCurrentRows<T>(_ body: (SnapshotTable, HistoryLog) throws -> T) throws -> T {
///         try state.withLock { try body($0.table, $0.history) }
///     }
///     …
/// }
/// ```
public protocol SnapshotTableStore: DataStore, HistoryProviding
where Snapshot == DefaultSnapshot, HistoryType == DefaultHistoryTransaction {
    /// Runs `body` on the store's current rows and history, under whatever keeps them consistent
    /// (a lock; for a store that other processes write, after reading their saves).
    func withCurrentRows<T>(_ body: (SnapshotTable, HistoryLog) throws -> T) throws -> T
}

extension SnapshotTableStore {
    /// The rows the request selects: the candidates are taken under the store's lock, then
    /// filtered, sorted and paged outside it from the request's translated query
    /// (``QueryEvaluator/fetch(_:over:)``: stored values where the query translated, models
    /// where it did not).
    /// - Complexity: O(1) rows read for `$0.id == value`; O(log *n* + *r* log *r*) for *r* rows
    ///   an index finds when the predicate (or an operand of its `&&`) compares an indexed
    ///   attribute with constants, or a limited sort by an indexed attribute walks the index
    ///   (`SnapshotTable.candidates(for:)`); otherwise
    ///   O(*n*) predicate evaluations on stored values; then O(*m* log *k*) comparisons for *m*
    ///   matches and a limit *k*.
    ///
    /// With `DataStoreFetchRequest/includesRelatedSnapshots`, the result also holds the rows the
    /// selected ones lead to through relationships (``SnapshotTable/relatedSnapshots(of:)``),
    /// read under the same lock when the table's columns decide the request; after evaluating
    /// the candidates otherwise, under the lock taken again.
    /// - Complexity: as above, plus O(*k*) hashed lookups for the *k* references the selected
    ///   and related rows hold, when related rows are asked for.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let withRelated = request.includesRelatedSnapshots && !(schema.entity(named: T.entityName)?.relationships.isEmpty ?? true)
        let (selected, candidates, related) = try withCurrentRows {
            table, _ -> ([DefaultSnapshot]?, [DefaultSnapshot], [PersistentIdentifier: DefaultSnapshot]) in
            // Decided on the table's columns when the stored values can; the candidates otherwise.
            if let selected = table.selectedSnapshots(for: request) {
                return (selected, [], withRelated ? table.relatedSnapshots(of: selected) : [:])
            }
            return (nil, table.candidates(for: request), [:])
        }
        if let selected {
            return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: selected, relatedSnapshots: related)
        }
        let fetched = try QueryEvaluator.fetch(request, over: candidates)
        guard withRelated else { return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: fetched) }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: fetched,
                                    relatedSnapshots: try withCurrentRows { table, _ in table.relatedSnapshots(of: fetched) })
    }

    /// How many rows the request selects; without a predicate or paging, the table's count.
    /// - Complexity: O(1) without a predicate or paging; for an indexed equality, O(*r*) rows an
    ///   index finds; otherwise O(*n*) predicate evaluations on stored values, decoding no row
    ///   the translated predicate decides.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        let descriptor = request.descriptor
        if descriptor.predicate == nil, !descriptor.isPaged {
            return try withCurrentRows { table, _ in table.count(of: T.entityName) }
        }
        let (selected, candidates) = try withCurrentRows { table, _ -> (Int?, [DefaultSnapshot]) in
            if let selected = table.selectedCount(for: request) { return (selected, []) }
            return (nil, table.candidates(for: request))
        }
        return try selected ?? QueryEvaluator.count(request, over: candidates)
    }

    /// The transactions the descriptor selects (``HistoryLog/fetch(_:storeIdentifier:schema:)``).
    /// - Throws: `HistoryError` for an expired or foreign token.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try withCurrentRows { _, history in try history.fetch(descriptor, storeIdentifier: identifier, schema: schema) }
    }

    /// The token of the newest transaction, `nil` before the first.
    public func currentHistoryToken() throws -> DefaultHistoryToken? {
        try withCurrentRows { _, history in
            history.lastTransactionNumber == 0 ? nil
                : DefaultHistoryToken(storeIdentifier: identifier, transactionNumber: history.lastTransactionNumber)
        }
    }
}
