import Foundation
import StoreProtocol

/// Finds the time range a predicate allows for a model's timestamp attribute, so that a fetch
/// reads only the segments and records in range.
///
/// It recognises comparisons of the attribute with a constant date (`$0.time >= start`,
/// `start < $0.time`, …) joined by `&&`; anything else leaves that part unbounded. The result
/// only narrows what is read: the whole predicate still decides which records match, so an
/// unrecognised predicate is slower, never wrong.
enum TimeRange {
    static func bounds<T: PersistentModel>(of predicate: Predicate<T>?, attribute: String) -> ClosedRange<Double>? {
        guard let predicate else { return nil }
        let (lower, upper) = walk(predicate.expression, attribute: attribute, model: T.self)
        guard lower != nil || upper != nil else { return nil }
        let low = lower ?? -.infinity, high = upper ?? .infinity
        return low <= high ? low...high : high...high   // an empty range still reads nothing in range
    }

    private static func walk<T: PersistentModel>(_ expression: Any, attribute: String, model: T.Type) -> (Double?, Double?) {
        let typeName = String(describing: type(of: expression))
        let children = Dictionary(Mirror(reflecting: expression).children.compactMap { child in
            child.label.map { ($0, child.value) }
        }, uniquingKeysWith: { a, _ in a })
        if typeName.hasPrefix("Conjunction<"), let lhs = children["lhs"], let rhs = children["rhs"] {
            let left = walk(lhs, attribute: attribute, model: model), right = walk(rhs, attribute: attribute, model: model)
            return (max(left.0 ?? -.infinity, right.0 ?? -.infinity).finiteOrNil, min(left.1 ?? .infinity, right.1 ?? .infinity).finiteOrNil)
        }
        guard typeName.hasPrefix("Comparison<"), let op = children["op"], let lhs = children["lhs"], let rhs = children["rhs"] else {
            return (nil, nil)
        }
        let operation = String(describing: op)
        if isAttribute(lhs, attribute, model), let date = constantDate(rhs) {
            switch operation {
            case "greaterThan", "greaterThanOrEqual": return (date, nil)
            case "lessThan", "lessThanOrEqual": return (nil, date)
            default: return (nil, nil)
            }
        }
        if isAttribute(rhs, attribute, model), let date = constantDate(lhs) {
            switch operation {
            case "lessThan", "lessThanOrEqual": return (date, nil)
            case "greaterThan", "greaterThanOrEqual": return (nil, date)
            default: return (nil, nil)
            }
        }
        return (nil, nil)
    }

    private static func isAttribute<T: PersistentModel>(_ expression: Any, _ attribute: String, _ model: T.Type) -> Bool {
        guard String(describing: type(of: expression)).hasPrefix("KeyPath<"),
              let keyPath = Mirror(reflecting: expression).children.first(where: { $0.label == "keyPath" })?.value as? PartialKeyPath<T>
        else { return false }
        return T.attributeName(of: keyPath) == attribute
    }

    private static func constantDate(_ expression: Any) -> Double? {
        guard String(describing: type(of: expression)).hasPrefix("Value<"),
              let date = Mirror(reflecting: expression).children.first(where: { $0.label == "value" })?.value as? Date
        else { return nil }
        return date.timeIntervalSince1970
    }
}

extension Double {
    fileprivate var finiteOrNil: Double? { isFinite ? self : nil }
}
