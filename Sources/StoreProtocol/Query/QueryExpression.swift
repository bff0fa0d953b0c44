/// A predicate over stored values: what a `#Predicate` becomes when ``FetchQuery`` translates it,
/// for a store to evaluate on the rows it keeps (or to render in its own query language)
/// without decoding models.
///
/// Values are ``SnapshotValue``s in canonical form (``QueryValueType/canonicalValue(of:)``):
/// an ``attribute(_:)`` reads a row's stored value as the model property's type would, a
/// ``constant(_:)`` holds a constant or captured value of the predicate, and ``SnapshotValue/null``
/// is `nil`. A boolean expression evaluates to ``SnapshotValue/bool(_:)``. Every case means
/// exactly what the Swift expression it came from means on the model; see ``QueryComparison``
/// and ``QueryStringOperation`` for the operators.
///
/// A translated expression never throws in Swift (a force unwrap is never translated), so
/// ``and(_:_:)`` and ``or(_:_:)`` may evaluate their operands in any order.
///
/// Rendered as SQL, `#Predicate<Trip> { $0.rating > 3 && $0.notes != nil }` is
/// `rating > 3 AND notes IS NOT NULL` (see the README's "Pushing queries down" for a renderer).
public indirect enum QueryExpression: Sendable, Hashable {
    /// A model attribute of the row, by stored name.
    case attribute(QueryAttribute)
    /// A constant or captured value; ``SnapshotValue/null`` for `nil`.
    case constant(SnapshotValue)
    /// `lhs op rhs`, both of one Swift type.
    case comparison(QueryExpression, QueryComparison, QueryExpression)
    /// `lhs && rhs`.
    case and(QueryExpression, QueryExpression)
    /// `lhs || rhs`.
    case or(QueryExpression, QueryExpression)
    /// `!operand`.
    case not(QueryExpression)
    /// `lhs ?? rhs`: `lhs` unless it is `nil`, else `rhs`.
    case coalesce(QueryExpression, QueryExpression)
    /// Optional chaining, `wrapped.flatMap { … }`: `nil` when `wrapped` is `nil`, else `then`,
    /// in which `wrapped` stands for the unwrapped value (so `$0.notes?.contains("x")` is
    /// `.ifPresent(notes, then: .string(notes, .contains, "x"))`).
    case ifPresent(QueryExpression, then: QueryExpression)
    /// A string test: `string.contains(other)` or `string.starts(with: other)`.
    case string(QueryExpression, QueryStringOperation, QueryExpression)
    /// `constants.contains(element)`: whether the element equals (by ``QueryComparison/equal``)
    /// one of the constants, which are of the element's type.
    case isMember(QueryExpression, of: [SnapshotValue])
}

extension QueryExpression: CustomStringConvertible {
    /// A Swift-like rendering, for diagnostics: `(rating > 3) && (notes != nil)`.
    public var description: String {
        switch self {
        case .attribute(let attribute): return attribute.name
        case .constant(let value): return value.description
        case let .comparison(lhs, op, rhs): return "(\(lhs) \(op.rawValue) \(rhs))"
        case let .and(lhs, rhs): return "(\(lhs) && \(rhs))"
        case let .or(lhs, rhs): return "(\(lhs) || \(rhs))"
        case .not(let operand): return "!\(operand)"
        case let .coalesce(lhs, rhs): return "(\(lhs) ?? \(rhs))"
        case let .ifPresent(wrapped, then): return "(\(wrapped) == nil ? nil : \(then))"
        case let .string(string, op, other):
            return op == .contains ? "\(string).contains(\(other))" : "\(string).starts(with: \(other))"
        case let .isMember(element, constants): return "\(SnapshotValue.array(constants)).contains(\(element))"
        }
    }
}
