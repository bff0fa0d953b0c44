import Foundation

/// One `SortDescriptor` translated: the attribute it sorts by, the order, and for strings the
/// comparator. Rows compare by the first key that tells them apart; rows that no key tells
/// apart keep their relative order (the store's order, insertion order for ours).
///
/// Ascending (``order`` `.forward`) means:
/// - `nil` before every value (an optional attribute);
/// - without a ``stringComparator``, the property type's Swift `<` (see ``QueryComparison``):
///   a value that is neither `<` nor `>` the other (NaN against anything) ties;
/// - with one, `stringComparator.compare(lhs, rhs)` (Foundation's `String.compare(_:options:)`
///   on Linux, where only `.lexical` exists).
public struct QuerySortKey: Sendable, Hashable, CustomStringConvertible {
    /// The attribute the rows sort by.
    public var attribute: QueryAttribute
    /// `.forward` for ascending, `.reverse` for descending.
    public var order: SortOrder
    /// The string comparator of a `SortDescriptor(_:comparator:)`, with order `.forward`;
    /// `nil` when values compare by their Swift `<`.
    public var stringComparator: String.StandardComparator?

    /// Makes a sort key from its parts, as given; no comparator sorts by the Swift `<`.
    public init(attribute: QueryAttribute, order: SortOrder, stringComparator: String.StandardComparator? = nil) {
        self.attribute = attribute
        self.order = order
        self.stringComparator = stringComparator
    }

    /// How two canonical values of the attribute compare under this key (order applied);
    /// `nil` when they are not of the attribute's type.
    /// - Complexity: O(1), but O(*n*) in the length of strings.
    public func compare(_ lhs: SnapshotValue, _ rhs: SnapshotValue) -> ComparisonResult? {
        let result: ComparisonResult
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): result = .orderedAscending
        case (_, .null): result = .orderedDescending
        case let (.string(a), .string(b)) where stringComparator != nil:
            result = stringComparator?.compare(a, b) ?? .orderedSame
        // The common kinds directly, without two trips through QueryComparison.
        case let (.int(a), .int(b)): result = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case let (.double(a), .double(b)): result = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case let (.date(a), .date(b)): result = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case let (.string(a), .string(b)) where stringComparator == nil:
            result = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        default:
            guard let less = QueryComparison.lessThan.evaluate(lhs, rhs),
                  let greater = QueryComparison.greaterThan.evaluate(lhs, rhs) else { return nil }
            result = less ? .orderedAscending : greater ? .orderedDescending : .orderedSame
        }
        guard order == .reverse else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    public var description: String {
        "\(attribute.name) \(order == .forward ? "ascending" : "descending")"
            + (stringComparator.map { " (\($0 == .lexical ? "lexical" : "\($0)"))" } ?? "")
    }
}
