import Foundation
import StoreProtocol

/// Predicate trees for `QueryCases`, built from `PredicateExpressions` with random constants
/// from the rows' own values: every translated operator, optionals, `??`, optional chaining,
/// membership, `Bool` attributes, and a few untranslatable nodes (an enum `==`, a force unwrap).
extension QueryCases {
    typealias Row = SuiteQueryRow
    typealias Root = PredicateExpressions.Variable<Row>
    typealias Condition = any StandardPredicateExpression<Bool>

    static func generatedProbe(_ random: inout SplitMix64) -> Probe {
        var text = ""
        var generated = random
        let predicate = Predicate<Row> { root in
            let (condition, description) = tree(root, depth: 3, &generated)
            text = description
            return condition
        }
        random = generated
        var sortTexts: [String] = []
        var sortBy: [SortDescriptor<Row>] = []
        for _ in 0..<Int(random.next() % 4) {
            let (sort, sortText) = sortDescriptor(&random)
            sortBy.append(sort)
            sortTexts.append(sortText)
        }
        var descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy)
        descriptor.fetchOffset = random.next() % 2 == 0 ? nil : Int(random.next() % 40)
        descriptor.fetchLimit = random.next() % 5 < 2 ? nil : Int(random.next() % 40)
        return Probe(descriptor: descriptor, text: "\(text), sorted by [\(sortTexts.joined(separator: ", "))], offset "
            + "\(descriptor.fetchOffset.map(String.init) ?? "nil"), limit \(descriptor.fetchLimit.map(String.init) ?? "nil")")
    }

    static func tree(_ root: Root, depth: Int, _ random: inout SplitMix64) -> (Condition, String) {
        guard depth > 0, random.next() % 3 != 0 else { return leaf(root, &random) }
        switch random.next() % 5 {
        case 0, 1:
            let (a, x) = tree(root, depth: depth - 1, &random), (b, y) = tree(root, depth: depth - 1, &random)
            return (and(a, b), "(\(x) && \(y))")
        case 2, 3:
            let (a, x) = tree(root, depth: depth - 1, &random), (b, y) = tree(root, depth: depth - 1, &random)
            return (or(a, b), "(\(x) || \(y))")
        default:
            let (a, x) = tree(root, depth: depth - 1, &random)
            return (not(a), "!\(x)")
        }
    }

    static func leaf(_ root: Root, _ random: inout SplitMix64) -> (Condition, String) {
        let op = Int(random.next() % 6)
        switch random.next() % 24 {
        case 0: return compare(root, \.name, "name", op, random.pick(names + ["b", "Zu", "é"]), &random)
        case 1: return compare(root, \.count, "count", op, random.pick(counts), &random)
        case 2: return compare(root, \.score, "score", op, random.pick(scores), &random)
        case 3: return compare(root, \.ratio, "ratio", op, random.pick(ratios), &random)
        case 4: return compare(root, \.big, "big", op, random.pick(bigs), &random)
        case 5: return compare(root, \.small, "small", op, random.pick(smalls), &random)
        case 6: return compare(root, \.when, "when", op, random.pick(dates), &random)
        case 7: return compare(root, \.id, "id", op % 2, UUID(), &random)
        case 8: return optionalEquality(root, \.nickname, "nickname", op % 2 == 0, random.next() % 3 == 0 ? nil : random.pick(names), &random)
        case 9: return optionalEquality(root, \.rank, "rank", op % 2 == 0, random.next() % 3 == 0 ? nil : random.pick(ranks), &random)
        case 10: return optionalEquality(root, \.optionalScore, "optionalScore", op % 2 == 0, random.next() % 3 == 0 ? nil : random.pick(scores), &random)
        case 11: return optionalEquality(root, \.maybe, "maybe", op % 2 == 0, random.next() % 3 == 0 ? nil : random.next() % 2 == 0, &random)
        case 12: return optionalEquality(root, \.token, "token", op % 2 == 0, random.next() % 3 == 0 ? nil : random.pick(tokens), &random)
        case 13: return optionalEquality(root, \.due, "due", op % 2 == 0, random.next() % 3 == 0 ? nil : random.pick(dates), &random)
        case 14: return coalesced(root, \.rank, "rank", random.pick(ranks), op, random.pick(ranks))
        case 15: return coalesced(root, \.nickname, "nickname", random.pick(names), op, random.pick(names))
        case 16: return coalesced(root, \.due, "due", random.pick(dates), op, random.pick(dates))
        case 17: return coalesced(root, \.optionalScore, "optionalScore", random.pick(scores), op, random.pick(scores))
        case 18:
            let other = random.pick(names + ["é", "e", "a", "🧭", "\u{301}", "Zu"])
            let name = PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.name), constant = PredicateExpressions.build_Arg(other)
            if op % 2 == 0 {
                return (PredicateExpressions.CollectionContainsCollection(base: name, other: constant), "name.contains(\(debug(other)))")
            }
            return (PredicateExpressions.SequenceStartsWith(base: name, prefix: constant), "name.starts(with: \(debug(other)))")
        case 19:
            let other = random.pick(names + ["é", "e", "a", "c"])
            let chained = PredicateExpressions.build_flatMap(PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.nickname)) {
                PredicateExpressions.CollectionContainsCollection(base: $0, other: PredicateExpressions.build_Arg(other))
            }
            if op % 2 == 0 {
                return (PredicateExpressions.build_Equal(lhs: chained, rhs: PredicateExpressions.build_Arg(Bool?(true))),
                        "nickname?.contains(\(debug(other))) == true")
            }
            return (PredicateExpressions.build_NilCoalesce(lhs: chained, rhs: PredicateExpressions.build_Arg(random.next() % 2 == 0)),
                    "nickname?.contains(\(debug(other))) ?? …")
        case 20:
            switch op % 3 {
            case 0:
                let some = (0..<Int(random.next() % 5)).map { _ in random.pick(names) }
                return (PredicateExpressions.SequenceContains(sequence: PredicateExpressions.build_Arg(some),
                    element: PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.name)), "\(some.map(debug)).contains(name)")
            case 1:
                let some = Set((0..<Int(random.next() % 5)).map { _ in random.pick(counts) })
                return (PredicateExpressions.SequenceContains(sequence: PredicateExpressions.build_Arg(some),
                    element: PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.count)), "Set(\(some.sorted())).contains(count)")
            default:
                let some = (0..<Int(random.next() % 4)).map { _ in random.pick(scores) }
                return (PredicateExpressions.SequenceContains(sequence: PredicateExpressions.build_Arg(some),
                    element: PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.score)), "\(some).contains(score)")
            }
        case 21:
            let flag = PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.flag)
            return op % 2 == 0 ? (flag, "flag") : (PredicateExpressions.build_Negation(flag), "!flag")
        case 22:
            // Two attributes of one type.
            return (PredicateExpressions.build_Comparison(
                lhs: PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.score),
                rhs: PredicateExpressions.build_NilCoalesce(
                    lhs: PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.optionalScore), rhs: PredicateExpressions.build_Arg(0.0)),
                op: comparisonOperator(op)), "score \(op) (optionalScore ?? 0)")
        default:
            // Not translated: an enum's ==, or (rarely) a force unwrap that throws on nil.
            if random.next() % 8 == 0 {
                return (PredicateExpressions.build_Comparison(
                    lhs: PredicateExpressions.build_ForcedUnwrap(PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.rank)),
                    rhs: PredicateExpressions.build_Arg(0), op: .greaterThan), "rank! > 0")
            }
            return (PredicateExpressions.build_Equal(
                lhs: PredicateExpressions.build_KeyPath(root: root, keyPath: \Row.mood),
                rhs: PredicateExpressions.build_Arg(SuiteAllTypes.Mood.calm)), "mood == .calm")
        }
    }

    static func sortDescriptor(_ random: inout SplitMix64) -> (SortDescriptor<Row>, String) {
        let order: SortOrder = random.next() % 2 == 0 ? .forward : .reverse
        let text = order == .forward ? "" : " desc"
        switch random.next() % 15 {
        case 0: return (SortDescriptor(\.name, order: order), "name" + text)
        case 1: return (SortDescriptor(\.nickname, order: order), "nickname" + text)
        case 2: return (SortDescriptor(\.count, order: order), "count" + text)
        case 3: return (SortDescriptor(\.rank, order: order), "rank" + text)
        case 4: return (SortDescriptor(\.score, order: order), "score" + text)
        case 5: return (SortDescriptor(\.optionalScore, order: order), "optionalScore" + text)
        case 6: return (SortDescriptor(\.ratio, order: order), "ratio" + text)
        case 7: return (SortDescriptor(\.big, order: order), "big" + text)
        case 8: return (SortDescriptor(\.small, order: order), "small" + text)
        case 9: return (SortDescriptor(\.when, order: order), "when" + text)
        case 10: return (SortDescriptor(\.due, order: order), "due" + text)
        case 11: return (SortDescriptor(\.token, order: order), "token" + text)
        case 12: return (SortDescriptor(\.name, comparator: .lexical, order: order), "name lexical" + text)
        case 13: return (SortDescriptor(\.nickname, comparator: .lexical, order: order), "nickname lexical" + text)
        default:
            var changed = SortDescriptor(\Row.count, order: order)
            changed.order = order == .forward ? .reverse : .forward
            return (changed, "count with order changed to\(order == .forward ? " desc" : "")")
        }
    }

    // MARK: Building blocks

    static func comparisonOperator(_ op: Int) -> PredicateExpressions.ComparisonOperator {
        [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual][op % 4]
    }

    static func operatorText(_ op: Int) -> String { ["==", "!=", "<", "<=", ">", ">="][op] }

    /// `attribute op constant`, or `constant op attribute`: op 0 `==`, 1 `!=`, 2–5 `<`, `<=`, `>`, `>=`.
    static func compare<V: Comparable & Codable & Sendable>(
        _ root: Root, _ keyPath: any KeyPath<Row, V> & Sendable, _ name: String, _ op: Int, _ constant: V, _ random: inout SplitMix64
    ) -> (Condition, String) {
        let attribute = PredicateExpressions.build_KeyPath(root: root, keyPath: keyPath), value = PredicateExpressions.build_Arg(constant)
        let text = debug(constant)
        if random.next() % 4 == 0 {
            return (binary(value, attribute, op), "\(text) \(operatorText(op)) \(name)")
        }
        return (binary(attribute, value, op), "\(name) \(operatorText(op)) \(text)")
    }

    static func binary<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ lhs: L, _ rhs: R, _ op: Int) -> Condition
    where L.Output == R.Output, L.Output: Comparable {
        switch op {
        case 0: return PredicateExpressions.build_Equal(lhs: lhs, rhs: rhs)
        case 1: return PredicateExpressions.build_NotEqual(lhs: lhs, rhs: rhs)
        default: return PredicateExpressions.build_Comparison(lhs: lhs, rhs: rhs, op: comparisonOperator(op - 2))
        }
    }

    /// `attribute == constant` or `!=`, the constant possibly `nil` (as a value or as `nil`).
    static func optionalEquality<V: Equatable & Codable & Sendable>(
        _ root: Root, _ keyPath: any KeyPath<Row, V?> & Sendable, _ name: String, _ equal: Bool, _ constant: V?, _ random: inout SplitMix64
    ) -> (Condition, String) {
        let attribute = PredicateExpressions.build_KeyPath(root: root, keyPath: keyPath)
        let text = "\(name) \(equal ? "==" : "!=") \(constant.map { debug($0) } ?? "nil")"
        if constant == nil, random.next() % 2 == 0 {
            let literal = PredicateExpressions.NilLiteral<V>()
            return equal ? (PredicateExpressions.build_Equal(lhs: attribute, rhs: literal), text)
                : (PredicateExpressions.build_NotEqual(lhs: attribute, rhs: literal), text)
        }
        let value = PredicateExpressions.build_Arg(constant)
        return equal ? (PredicateExpressions.build_Equal(lhs: attribute, rhs: value), text)
            : (PredicateExpressions.build_NotEqual(lhs: attribute, rhs: value), text)
    }

    /// `(attribute ?? fallback) op constant`.
    static func coalesced<V: Comparable & Codable & Sendable>(
        _ root: Root, _ keyPath: any KeyPath<Row, V?> & Sendable, _ name: String, _ fallback: V, _ op: Int, _ constant: V
    ) -> (Condition, String) {
        let lhs = PredicateExpressions.build_NilCoalesce(
            lhs: PredicateExpressions.build_KeyPath(root: root, keyPath: keyPath), rhs: PredicateExpressions.build_Arg(fallback))
        return (binary(lhs, PredicateExpressions.build_Arg(constant), op),
                "(\(name) ?? \(debug(fallback))) \(operatorText(op)) \(debug(constant))")
    }

    static func and<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> Condition {
        PredicateExpressions.build_Conjunction(lhs: lhs, rhs: rhs)
    }

    static func or<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> Condition {
        PredicateExpressions.build_Disjunction(lhs: lhs, rhs: rhs)
    }

    static func not<W: StandardPredicateExpression<Bool>>(_ wrapped: W) -> Condition {
        PredicateExpressions.build_Negation(wrapped)
    }

    static func debug(_ value: some Any) -> String { String(reflecting: value) }
}
