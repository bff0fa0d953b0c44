import Foundation
import StoreProtocol

/// Finds the time range a fetch's translated filter allows for a model's timestamp attribute,
/// so that a fetch reads only the segments and records in range.
///
/// It reads the request's `FetchQuery`: comparisons (`<`, `<=`, `>`, `>=`, `==`) of the
/// attribute with a constant date, either way round, among the operands of the filter's
/// top-level `&&` (of the translated part of a narrowed filter too). Anything else leaves that
/// part unbounded. The result only narrows what is read: the whole query still decides which
/// records match, so an unrecognised predicate is slower, never wrong.
enum TimeRange {
    /// The closed range of seconds since 1970 that every matching record's time lies in; `nil`
    /// when the filter does not bound the attribute. A filter whose bounds cross gives a
    /// one-point range, which reads only the records at that instant (and matches none of them).
    /// - Complexity: O(*n*) in the size of the filter.
    static func bounds(of filter: FetchQuery.Filter, attribute: String) -> ClosedRange<Double>? {
        let expression: QueryExpression
        switch filter {
        case .expression(let translated), .narrowed(let translated, _): expression = translated
        case .all, .untranslated: return nil
        }
        var lower = -Double.infinity, upper = Double.infinity
        var operands = [expression]
        while let operand = operands.popLast() {
            switch operand {
            case let .and(lhs, rhs):
                operands.append(lhs)
                operands.append(rhs)
            case let .comparison(.attribute(named), op, .constant(.date(date))) where named.name == attribute:
                narrow(&lower, &upper, op, date.timeIntervalSince1970)
            case let .comparison(.constant(.date(date)), op, .attribute(named)) where named.name == attribute:
                narrow(&lower, &upper, op.swapped, date.timeIntervalSince1970)
            default:
                continue
            }
        }
        guard lower > -.infinity || upper < .infinity else { return nil }
        return lower <= upper ? lower...upper : upper...upper
    }

    /// `time op bound` narrows `lower...upper` (closed: `<` reads the bound too, a superset).
    private static func narrow(_ lower: inout Double, _ upper: inout Double, _ op: QueryComparison, _ bound: Double) {
        guard !bound.isNaN else { return }   // true of no record; the query says so, not the range
        switch op {
        case .greaterThan, .greaterThanOrEqual: lower = max(lower, bound)
        case .lessThan, .lessThanOrEqual: upper = min(upper, bound)
        case .equal:
            lower = max(lower, bound)
            upper = min(upper, bound)
        case .notEqual: break
        }
    }
}
