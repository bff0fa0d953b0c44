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

    /// Filters, sorts and limits transactions already selected by ``after``: the limit applies
    /// to what the predicate selects, in the order `sortBy` gives.
    /// - Throws: ``DataStoreError/Code/invalidPredicate`` when the predicate throws.
    public func apply(to transactions: some Sequence<T>) throws -> [T] {
        var result: [T] = []
        if sortBy.isEmpty, let fetchLimit, fetchLimit <= 0 { return result }
        for transaction in transactions {
            if let predicate, try !SnapshotQuery.matches(predicate, transaction) { continue }
            result.append(transaction)
            if sortBy.isEmpty, let fetchLimit, result.count >= fetchLimit { return result }
        }
        if !sortBy.isEmpty { result.sort(using: sortBy) }
        if let fetchLimit, result.count > fetchLimit { result.removeLast(result.count - max(0, fetchLimit)) }
        return result
    }

    /// The tokens the predicate holds as constants (`#Predicate { $0.token > token }` holds
    /// `token`), in the order they appear: a container checks each as it checks ``after``, so
    /// that a predicate over an expired token throws rather than silently select what is left.
    /// - Complexity: O(*n*) in the size of the predicate's expression; constants that are not
    ///   tokens (a captured array, say) are not looked into.
    var predicateTokens: [T.Token] {
        guard let predicate else { return [] }
        var tokens: [T.Token] = []
        Self.collectTokens(in: predicate.expression, into: &tokens)
        return tokens
    }

    /// Walks an expression's stored parts by reflection: `PredicateExpressions` has a type per
    /// operator and no common way to list an expression's operands.
    private static func collectTokens(in node: Any, into tokens: inout [T.Token]) {
        if let constant = node as? any PredicateConstant {
            if let token = constant.constantValue as? T.Token { tokens.append(token) }
            return
        }
        for child in Mirror(reflecting: node).children { collectTokens(in: child.value, into: &tokens) }
    }
}

/// A constant of a predicate (`PredicateExpressions.Value`), whatever its type.
private protocol PredicateConstant {
    var constantValue: Any { get }
}

extension PredicateExpressions.Value: PredicateConstant {
    fileprivate var constantValue: Any { value }
}
