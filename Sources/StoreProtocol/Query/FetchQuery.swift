/// A ``FetchDescriptor`` translated for a store: its predicate as a ``QueryExpression`` and its
/// sort as ``QuerySortKey``s, where they mean exactly what the `Predicate` and
/// `SortDescriptor`s mean on models; what cannot be translated is reported, with the reason.
///
/// ``DataStoreFetchRequest/query`` carries it, translated once per request. A store evaluates
/// ``filter`` and ``sort`` on its stored values, and wherever they are not translated uses the
/// descriptor's `Predicate` or `SortDescriptor`s on decoded models (``SnapshotQuery``); the
/// results are the same either way. Paging (``fetchOffset``, ``fetchLimit``) applies last.
///
/// ```swift
/// switch request.query.filter {
/// case .all: …                                   // every row
/// case .expression(let where): …                 // rows where `where` is true
/// case .narrowed(let where, _): …                // rows where `where` is true, then the Predicate
/// case .untranslated: …                          // the Predicate on every decoded row
/// }
/// ```
public struct FetchQuery: Sendable, Hashable {
    /// Which rows match.
    public enum Filter: Sendable, Hashable {
        /// No predicate: every row.
        case all
        /// The rows where the expression is `true`, exactly those the predicate selects.
        case expression(QueryExpression)
        /// Only part of the predicate translated: a row where the expression is not `true` does
        /// not match (the predicate is `expression && rest`, and `rest` is then not evaluated);
        /// a row where it is `true` matches when the whole `Predicate` holds for its model.
        case narrowed(QueryExpression, untranslated: String)
        /// Nothing translated: the `Predicate` decides on every row's model. The string says
        /// which part could not be translated and why.
        case untranslated(String)
    }

    /// The order of the rows.
    public enum Sort: Sendable, Hashable {
        /// No sort descriptors: the store's order.
        case unsorted
        /// By these keys, the first that tells two rows apart deciding.
        case keys([QuerySortKey])
        /// Not translated: sort the models with the `SortDescriptor`s. The string says why.
        case untranslated(String)
    }

    /// The model's entity name.
    public var entityName: String
    /// Which rows match: all, those a translated expression selects, or those the `Predicate` must decide.
    public var filter: Filter
    /// The order of the rows: the store's, translated keys, or the `SortDescriptor`s on models.
    public var sort: Sort
    /// How many rows to skip after filtering and sorting (`nil`: none).
    public var fetchOffset: Int?
    /// At most how many rows to return after the offset (`nil`: all).
    public var fetchLimit: Int?

    /// Whether part of the predicate or sort did not translate, so that it is decided on models.
    public var needsModels: Bool {
        switch (filter, sort) {
        case (.narrowed, _), (.untranslated, _), (_, .untranslated): return true
        default: return false
        }
    }

    /// Makes a query from its parts, as given (no translation); ``DataStoreFetchRequest`` makes one
    /// from a descriptor with ``init(_:)``.
    public init(entityName: String, filter: Filter, sort: Sort, fetchOffset: Int? = nil, fetchLimit: Int? = nil) {
        self.entityName = entityName
        self.filter = filter
        self.sort = sort
        self.fetchOffset = fetchOffset
        self.fetchLimit = fetchLimit
    }

    /// Whether both the predicate and the sort are fully translated, so that a store needs no
    /// model to answer.
    public var isFullyTranslated: Bool {
        switch (filter, sort) {
        case (.all, .unsorted), (.all, .keys), (.expression, .unsorted), (.expression, .keys): return true
        default: return false
        }
    }
}
