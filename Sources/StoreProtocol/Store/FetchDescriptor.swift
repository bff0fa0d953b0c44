import Foundation

/// Which models to fetch, in what order, and how many: SwiftData's `FetchDescriptor`.
public struct FetchDescriptor<T: PersistentModel>: Sendable {
    /// Selects the models; `nil` selects all.
    public var predicate: Predicate<T>?
    /// The order; an empty array leaves the store's order (insertion order for our backends).
    public var sortBy: [SortDescriptor<T>]
    /// How many selected models to skip.
    public var fetchOffset: Int?
    /// At most how many models to return.
    public var fetchLimit: Int?
    /// Whether unsaved inserts, deletes and changes of the context count. Default `true`.
    public var includePendingChanges: Bool
    /// SwiftData's hint to fetch only these properties. Accepted and not needed: a fetched model
    /// here always has every stored property's value.
    public var propertiesToFetch: [any PartialKeyPath<T> & Sendable] = []
    /// SwiftData's hint to load these relationships with the fetch. Accepted and not needed:
    /// a fetch here loads the related models of the models it returns.
    public var relationshipKeyPathsForPrefetching: [any PartialKeyPath<T> & Sendable] = []

    /// Makes a descriptor that selects what `predicate` selects (everything when `nil`), in the order
    /// of `sortBy`, with no offset or limit, pending changes included.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchOffset = nil
        self.fetchLimit = nil
        self.includePendingChanges = true
    }

    /// Whether the descriptor asks for a window of the results (an offset or a limit).
    public var isPaged: Bool { fetchOffset != nil || fetchLimit != nil }

    /// Applies offset and limit to already filtered and sorted results.
    package func page<C: RandomAccessCollection>(_ results: C) -> C.SubSequence where C.Index == Int {
        let start = min(results.count, max(0, fetchOffset ?? 0)) + results.startIndex
        let end = fetchLimit.map { min(results.endIndex, start + max(0, $0)) } ?? results.endIndex
        return results[start..<end]
    }
}
