import Foundation

extension QueryExpression {
    /// The expression with every comparison that has a NaN constant as an operand replaced by
    /// the constant it always is, and NaN left out of `contains` lists, so that no store has to
    /// render NaN (SQL databases order NaN above every number and find it equal to itself, where
    /// Swift finds it equal to nothing and ordered with nothing).
    ///
    /// Under IEEE 754, as in Swift, a comparison with NaN is `false` for `==`, `<`, `<=`, `>` and
    /// `>=` and `true` for `!=`, whatever the other operand (`nil` included: `nil == .nan` is
    /// `false`); a `Date` whose interval is NaN compares as its interval. `constants.contains(x)`
    /// is `==` on each constant, so a NaN constant matches nothing. A translated expression
    /// never throws, so dropping the other operand changes nothing but the work.
    ///
    /// A NaN constant can remain inside `??` (`($0.score ?? .nan) < 1`), whose value is not
    /// always NaN; a store that cannot render it leaves that part to the `Predicate`.
    func foldingNaNComparisons() -> QueryExpression {
        switch self {
        case .attribute, .constant:
            return self
        case let .comparison(lhs, op, rhs):
            let lhs = lhs.foldingNaNComparisons(), rhs = rhs.foldingNaNComparisons()
            if lhs.isNaNConstant || rhs.isNaNConstant { return .constant(.bool(op == .notEqual)) }
            return .comparison(lhs, op, rhs)
        case let .and(lhs, rhs): return .and(lhs.foldingNaNComparisons(), rhs.foldingNaNComparisons())
        case let .or(lhs, rhs): return .or(lhs.foldingNaNComparisons(), rhs.foldingNaNComparisons())
        case .not(let operand): return .not(operand.foldingNaNComparisons())
        case let .coalesce(lhs, rhs): return .coalesce(lhs.foldingNaNComparisons(), rhs.foldingNaNComparisons())
        case let .ifPresent(wrapped, then): return .ifPresent(wrapped.foldingNaNComparisons(), then: then.foldingNaNComparisons())
        case let .string(string, op, other): return .string(string.foldingNaNComparisons(), op, other.foldingNaNComparisons())
        case let .isMember(element, constants):
            let comparable = constants.filter { !$0.isNaN }
            if comparable.isEmpty && !constants.isEmpty { return .constant(.bool(false)) }
            return .isMember(element.foldingNaNComparisons(), of: comparable)
        }
    }

    /// Whether the expression is a NaN constant (`Double` or `Float`, or a `Date` of NaN interval).
    private var isNaNConstant: Bool {
        if case .constant(let value) = self { value.isNaN } else { false }
    }
}

extension SnapshotValue {
    /// Whether the value is NaN, or a `Date` whose interval is NaN: equal to nothing, ordered with nothing.
    var isNaN: Bool {
        switch self {
        case .double(let value): value.isNaN
        case .date(let value): value.timeIntervalSinceReferenceDate.isNaN
        default: false
        }
    }
}
