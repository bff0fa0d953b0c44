// SwiftData names that exist only with SwiftUI, declared so that the compiler says what to write
// instead of "cannot find 'Query' in scope". What cannot be declared without SwiftUI (the
// `.modelContainer(for:)` view modifier, `@Environment(\.modelContext)`) is listed in the
// "Coming from SwiftData" article.

/// SwiftData's `@Query`, which needs SwiftUI (a view's dynamic property): not available here.
///
/// Fetch with the context instead, and fetch again after it saves:
///
/// ```swift
/// let trips = try container.mainContext.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
/// for await _ in container.mainContext.didSaveSummaries() { /* fetch again */ }
/// ```
@available(
    *, unavailable,
    message: "@Query needs SwiftUI, which this platform does not have; fetch with 'try modelContext.fetch(FetchDescriptor<Model>(predicate: …, sortBy: …))' and fetch again after ModelContext.didSave (or didSaveSummaries())"
)
@propertyWrapper
public struct Query<Element: PersistentModel, Result> {
    /// Never read: the type is unavailable.
    public var wrappedValue: Result { preconditionFailure("Query is unavailable") }

    /// SwiftData's `@Query(filter:sort:order:transaction:animation:)` (a key path sort).
    public init<Value>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        transaction: Any? = nil, animation: Any? = nil
    ) where Result == [Element] {}

    /// SwiftData's `@Query(filter:sort:transaction:animation:)` (sort descriptors), and `@Query`.
    public init(
        filter: Predicate<Element>? = nil, sort descriptors: [SortDescriptor<Element>] = [], transaction: Any? = nil,
        animation: Any? = nil
    ) where Result == [Element] {}

    /// SwiftData's `@Query(_ descriptor:transaction:animation:)`.
    public init(_ descriptor: FetchDescriptor<Element>, transaction: Any? = nil, animation: Any? = nil) where Result == [Element] {}
}
