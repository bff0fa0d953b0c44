import PostgresNIO
import StoreProtocol

/// Renders the parts of a translated query (`QueryExpression`, `QuerySortKey`) that PostgreSQL
/// computes exactly as Swift does, over an ``EntityTable``'s typed columns, with every constant
/// bound as a parameter.
///
/// What renders: integer and `Bool` attributes, integer, `Bool` and `nil` constants, the six
/// comparisons (`==` as `IS NOT DISTINCT FROM`, so that `nil == nil` as in Swift), `&&`, `||`, `!`
/// and `contains` on integer constants; sorts by integer attributes (`nil` first ascending, as
/// Swift orders optionals in a sort). What does not (strings, which Swift compares by canonical
/// equivalence and PostgreSQL by collation; floating point, whose NaN and `-0.0` PostgreSQL orders
/// otherwise; dates, UUIDs, `??`, optional chaining, string operations) returns `nil`, and the
/// store evaluates that part in memory.
struct SQLQueryRenderer {
    let table: EntityTable
    /// The parameters rendered so far; `$n` in the text is `binds`' *n*-th.
    var binds: PostgresBindings
    /// Whether a rendered part reads a typed column (then rows with `_exact = false` matter).
    private(set) var usesTypedColumns = false

    init(table: EntityTable, binds: PostgresBindings = PostgresBindings()) {
        self.table = table
        self.binds = binds
    }

    /// A bound parameter's placeholder.
    mutating func bind(_ value: some PostgresDynamicTypeEncodable, as type: String) -> String {
        binds.append(value)
        return "$\(binds.count)::\(type)"
    }

    /// A boolean or value expression, or `nil` when PostgreSQL would not compute what Swift does.
    mutating func render(_ expression: QueryExpression) -> String? {
        switch expression {
        case .attribute(let attribute):
            guard let column = table.columnsByAttribute[attribute.name], column.attribute.type == attribute.type else { return nil }
            usesTypedColumns = true
            return column.sqlName
        case .constant(.null): return "NULL"
        case .constant(.int(let value)): return bind(value, as: "bigint")
        case .constant(.bool(let value)): return bind(value, as: "boolean")
        case .constant: return nil
        case let .comparison(lhs, op, rhs):
            guard let lhs = render(lhs), let rhs = render(rhs) else { return nil }
            switch op {
            case .equal: return "(\(lhs) IS NOT DISTINCT FROM \(rhs))"
            case .notEqual: return "(\(lhs) IS DISTINCT FROM \(rhs))"
            default: return "COALESCE(\(lhs) \(op.rawValue) \(rhs), false)"
            }
        case let .and(lhs, rhs):
            guard let lhs = render(lhs), let rhs = render(rhs) else { return nil }
            return "(\(lhs) AND \(rhs))"
        case let .or(lhs, rhs):
            guard let lhs = render(lhs), let rhs = render(rhs) else { return nil }
            return "(\(lhs) OR \(rhs))"
        case .not(let operand):
            return render(operand).map { "(NOT \($0))" }
        case let .isMember(element, constants):
            var integers: [Int64] = []
            for constant in constants {
                guard case .int(let value) = constant else { return nil }
                integers.append(value)
            }
            guard let element = render(element) else { return nil }
            return "COALESCE(\(element) = ANY(\(bind(integers, as: "bigint[]"))), false)"
        case .coalesce, .ifPresent, .string:
            return nil
        }
    }

    /// The conjuncts of a top-level `&&` that render, joined by `AND`; `nil` when none does.
    /// A row they reject is rejected by the whole expression.
    mutating func renderConjuncts(_ expression: QueryExpression) -> String? {
        var parts: [String] = []
        func walk(_ expression: QueryExpression) {
            if case let .and(lhs, rhs) = expression {
                walk(lhs)
                walk(rhs)
            } else if let rendered = render(expression) {
                parts.append(rendered)
            }
        }
        walk(expression)
        return parts.isEmpty ? nil : parts.joined(separator: " AND ")
    }

    /// `ORDER BY` terms for sort keys (insertion order breaks ties), or `nil` when a key does not render.
    mutating func renderSort(_ keys: [QuerySortKey]) -> String? {
        var terms: [String] = []
        for key in keys {
            guard key.stringComparator == nil, let column = table.columnsByAttribute[key.attribute.name],
                  !column.isBool, column.attribute.type == key.attribute.type else { return nil }
            usesTypedColumns = true
            terms.append(key.order == .forward ? "\(column.sqlName) ASC NULLS FIRST" : "\(column.sqlName) DESC NULLS LAST")
        }
        terms.append("_seq ASC")
        return terms.joined(separator: ", ")
    }
}
