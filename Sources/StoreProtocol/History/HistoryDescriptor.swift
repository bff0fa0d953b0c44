import Foundation

/// Which history transactions to fetch or delete: SwiftData's `HistoryDescriptor`, plus an
/// explicit ``after`` token.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(after: savedToken)
/// descriptor.predicate = #Predicate { $0.author == "widget" }
/// ```
public struct HistoryDescriptor<T: HistoryTransaction>: Sendable {
    /// Only transactions after this token. A store throws ``HistoryError/Code/historyTokenExpired``
    /// when history it would have returned was deleted, and ``HistoryError/Code/foreignToken``
    /// when the token is not one of its own.
    public var after: T.Token?
    /// Selects transactions; `nil` selects all.
    public var predicate: Predicate<T>?
    /// The order; empty means oldest first.
    public var sortBy: [SortDescriptor<T>]
    /// At most how many transactions.
    public var fetchLimit: Int?

    /// Makes a descriptor; the defaults select every transaction, oldest first.
    public init(after: T.Token? = nil, predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = [], fetchLimit: Int? = nil) {
        self.after = after
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
    }

    /// Filters, sorts and limits transactions already selected by ``after``.
    /// - Throws: ``DataStoreError/Code/invalidPredicate`` when the predicate throws.
    public func apply(to transactions: some Sequence<T>) throws -> [T] {
        var result: [T] = []
        for transaction in transactions {
            if let predicate, try !SnapshotQuery.matches(predicate, transaction) { continue }
            result.append(transaction)
            if sortBy.isEmpty, let fetchLimit, result.count >= fetchLimit { return result }
        }
        if !sortBy.isEmpty { result.sort(using: sortBy) }
        if let fetchLimit, result.count > fetchLimit { result.removeLast(result.count - max(0, fetchLimit)) }
        return result
    }
}
