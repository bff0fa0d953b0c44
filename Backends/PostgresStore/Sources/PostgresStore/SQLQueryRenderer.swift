#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import PostgresNIO
import StoreProtocol

/// Renders the parts of a translated query (`QueryExpression`, `QuerySortKey`) that PostgreSQL
/// computes exactly as Swift does, over an ``EntityTable``'s columns, with every constant bound
/// as a parameter.
///
/// What renders, on the rows whose `_exact` is true (the store looks at the others in memory):
/// - attributes of every query type: integers, `Bool`, `Double`, `Float`, `String`, `Date`, `UUID`;
/// - constants of those types and `nil`, except strings with a NUL character (PostgreSQL's
///   `text` cannot hold one), NaN (PostgreSQL finds NaN equal to itself and
///   above every number; Swift finds it unordered) and integers above `Int64.max`;
/// - `==` and `!=` (as `IS [NOT] DISTINCT FROM`, so that `nil == nil` as in Swift), `<`, `<=`,
///   `>`, `>=` (not on `Bool` or `UUID`), `&&`, `||`, `!`, and `contains` on a list of constants;
/// - sorts by integer, floating-point, `String` and `Date` attributes without a string
///   comparator (`nil` first ascending, as Swift orders optionals in a sort).
///
/// Why strings are exact: Swift compares strings by canonical equivalence, ordered by the
/// Unicode scalars of their normalization form C; an exact row's string is in NFC, a constant is
/// bound in NFC, and the comparison runs in the "C" collation (UTF-8 byte order, which is scalar
/// order). `-0.0 == 0.0` holds in both. What does not render (`??`, optional chaining, string
/// operations such as `contains` or `localizedStandardContains`, localized sorts) returns `nil`,
/// and the store evaluates that part in memory.
struct SQLQueryRenderer {
    typealias Kind = EntityTable.Column.Kind

    let table: EntityTable
    /// The parameters rendered so far; `$n` in the text is `binds`' *n*-th.
    var binds: StatementBinds
    /// Whether a rendered part reads a column (then rows with `_exact = false` matter).
    private(set) var usesTypedColumns = false

    init(table: EntityTable, binds: StatementBinds = StatementBinds()) {
        self.table = table
        self.binds = binds
    }

    /// A rendered expression: its SQL and the kind of value it is (`nil` for `NULL`).
    struct Rendered {
        let sql: String
        let kind: Kind?
        /// Whether SQL may find it `NULL`: a column; not a bound constant or a comparison.
        var mayBeNull = false
    }

    /// A boolean expression, or `nil` when PostgreSQL would not compute what Swift does.
    mutating func render(_ expression: QueryExpression) -> String? {
        let bound = binds
        guard let rendered = value(expression), rendered.kind == .bool else {
            // A part that does not render leaves no parameter behind: the server infers a
            // prepared statement's parameter types from the text, and refuses one it never
            // reads (SQLSTATE 42P18).
            binds = bound
            return nil
        }
        return rendered.sql
    }

    /// A bound parameter's placeholder.
    private mutating func bind(_ value: some PostgresDynamicTypeEncodable, as type: String) -> String {
        binds.append(value)
        return "$\(binds.count)::\(type)"
    }

    /// Any expression: a column, a constant, or a boolean combination.
    private mutating func value(_ expression: QueryExpression) -> Rendered? {
        switch expression {
        case .attribute(let attribute):
            guard let column = table.columnsByAttribute[attribute.name], column.attribute?.type == attribute.type,
                  column.kind == Kind(queryType: attribute.type) else { return nil }
            usesTypedColumns = true
            return Rendered(sql: column.sqlName, kind: column.kind, mayBeNull: true)
        case .constant(let constant):
            return self.constant(constant)
        case let .comparison(lhsExpression, op, rhsExpression):
            guard let lhs = value(lhsExpression), let rhs = value(rhsExpression) else { return nil }
            let kind = lhs.kind ?? rhs.kind
            if let l = lhs.kind, let r = rhs.kind, l != r { return nil }
            if op != .equal && op != .notEqual && (kind == .bool || kind == .uuid || kind == .json) { return nil }
            let test = Self.comparison(lhs, op, rhs)
            guard op == .equal, let byKey = primaryKeyTest(lhsExpression, rhsExpression) ?? primaryKeyTest(rhsExpression, lhsExpression)
            else { return Rendered(sql: test, kind: .bool) }
            return Rendered(sql: "(\(byKey) AND \(test))", kind: .bool)
        case let .and(lhs, rhs):
            guard let lhs = render(lhs), let rhs = render(rhs) else { return nil }
            return Rendered(sql: "(\(lhs) AND \(rhs))", kind: .bool)
        case let .or(lhs, rhs):
            guard let lhs = render(lhs), let rhs = render(rhs) else { return nil }
            return Rendered(sql: "(\(lhs) OR \(rhs))", kind: .bool)
        case .not(let operand):
            return render(operand).map { Rendered(sql: "(NOT \($0))", kind: .bool) }
        case let .isMember(elementExpression, constants):
            guard let element = value(elementExpression), let kind = element.kind, let list = list(constants, of: kind) else { return nil }
            let lhs = kind == .string ? Self.inC(element.sql) : element.sql
            var test = "\(lhs) = ANY(\(list))"
            if let byKey = primaryKeyTest(elementExpression, constants) { test = "\(byKey) AND \(test)" }
            return Rendered(sql: element.mayBeNull ? "(\(test) AND \(element.sql) IS NOT NULL)" : "(\(test))", kind: .bool)
        case .coalesce, .ifPresent, .string:
            return nil
        }
    }

    /// `_pk = $n` (or `= ANY`) for `$0.id == constant` and `constants.contains($0.id)`: the same
    /// rows as the test on the `id` column (`_pk` spells a key as ``PrimaryKeyText`` does, one
    /// spelling for keys Swift finds equal), found through the primary key's index, which the
    /// `id` column does not have. Sync's read-ahead fetches a batch's models this way.
    /// `nil` for anything else, or a key `_pk` cannot spell.
    private mutating func primaryKeyTest(_ attribute: QueryExpression, _ constants: QueryExpression) -> String? {
        guard case .attribute(let id) = attribute, id.name == "id", case .constant(let key) = constants, key != .null,
              let text = try? PrimaryKeyText.text(key) else { return nil }
        return "_pk = \(bind(text, as: "text"))"
    }

    private mutating func primaryKeyTest(_ attribute: QueryExpression, _ constants: [SnapshotValue]) -> String? {
        guard case .attribute(let id) = attribute, id.name == "id",
              let texts = try? constants.map(PrimaryKeyText.text) else { return nil }
        return "_pk = ANY(\(bind(texts, as: "text[]")))"
    }

    /// A comparison that is true or false (never SQL's unknown, which `NOT` would keep unknown
    /// where Swift's `!` gives `true`), and that an index on the column serves: `a = $1 AND a IS
    /// NOT NULL` rather than `COALESCE(a = $1, false)` or `a IS NOT DISTINCT FROM $1`, which
    /// PostgreSQL does not look up in a B-tree.
    ///
    /// `nil` compares as Swift's optionals do: `nil == nil`, and `nil` differs from every value.
    private static func comparison(_ lhs: Rendered, _ op: QueryComparison, _ rhs: Rendered) -> String {
        let (l, r) = lhs.kind == .string || rhs.kind == .string ? (inC(lhs.sql), inC(rhs.sql)) : (lhs.sql, rhs.sql)
        let isNull = (lhs.kind == nil, rhs.kind == nil)
        switch (op, isNull) {
        case (.equal, (true, true)): return "true"
        case (.notEqual, (true, true)): return "false"
        case (.equal, (true, false)): return "(\(r) IS NULL)"
        case (.equal, (false, true)): return "(\(l) IS NULL)"
        case (.notEqual, (true, false)): return "(\(r) IS NOT NULL)"
        case (.notEqual, (false, true)): return "(\(l) IS NOT NULL)"
        case (_, (true, _)), (_, (_, true)):
            return "false"   // an ordering with nil: never asked of a translated predicate (`evaluate` has no answer)
        default:
            break
        }
        // Both non-null values: the sides that may be NULL (columns) need saying.
        let nullable = [lhs, rhs].filter(\.mayBeNull).map(\.sql)
        switch op {
        case .equal where nullable.count == 2: return "(\(l) IS NOT DISTINCT FROM \(r))"
        case .notEqual where nullable.count == 2: return "(\(l) IS DISTINCT FROM \(r))"
        case .notEqual: return "(\(([ "\(l) <> \(r)"] + nullable.map { "\($0) IS NULL" }).joined(separator: " OR ")))"
        default: return "(\(([ "\(l) \(op == .equal ? "=" : op.rawValue) \(r)"] + nullable.map { "\($0) IS NOT NULL" }).joined(separator: " AND ")))"
        }
    }

    /// A constant as a bound parameter of its kind; `nil` for what does not compare as in Swift.
    private mutating func constant(_ value: SnapshotValue) -> Rendered? {
        switch value {
        case .null: return Rendered(sql: "NULL", kind: nil)
        case .int(let v): return Rendered(sql: bind(v, as: "bigint"), kind: .integer)
        case .bool(let v): return Rendered(sql: bind(v, as: "boolean"), kind: .bool)
        case .double(let v) where !v.isNaN: return Rendered(sql: bind(v, as: "double precision"), kind: .double)
        // PostgreSQL's text cannot hold a NUL character: such a constant is compared in memory.
        case .string(let s) where !s.utf8.contains(0):
            return Rendered(sql: bind(s.precomposedStringWithCanonicalMapping, as: "text"), kind: .string)
        case .date(let d) where !d.timeIntervalSinceReferenceDate.isNaN:
            return Rendered(sql: bind(d.timeIntervalSinceReferenceDate, as: "double precision"), kind: .date)
        case .uuid(let u): return Rendered(sql: bind(u, as: "uuid"), kind: .uuid)
        default: return nil
        }
    }

    /// The constants of a `contains` as one array parameter of `kind`, or `nil` when one of
    /// them does not render (`nil`, NaN, another kind).
    private mutating func list(_ constants: [SnapshotValue], of kind: Kind) -> String? {
        switch kind {
        case .integer:
            let values = constants.compactMap { if case .int(let v) = $0 { v } else { nil } }
            return values.count == constants.count ? bind(values, as: "bigint[]") : nil
        case .double, .date:
            let values = constants.compactMap { constant -> Double? in
                switch (kind, constant) {
                case (.double, .double(let v)) where !v.isNaN: v
                case (.date, .date(let d)) where !d.timeIntervalSinceReferenceDate.isNaN: d.timeIntervalSinceReferenceDate
                default: nil
                }
            }
            return values.count == constants.count ? bind(values, as: "double precision[]") : nil
        case .string:
            let values = constants.compactMap { if case .string(let s) = $0, !s.utf8.contains(0) { s.precomposedStringWithCanonicalMapping } else { nil } }
            return values.count == constants.count ? bind(values, as: "text[]") : nil
        case .uuid:
            let values = constants.compactMap { if case .uuid(let u) = $0 { u } else { nil } }
            return values.count == constants.count ? bind(values, as: "uuid[]") : nil
        case .bool:
            let values = constants.compactMap { if case .bool(let v) = $0 { v } else { nil } }
            return values.count == constants.count ? bind(values, as: "boolean[]") : nil
        case .json:
            return nil
        }
    }

    /// A `String` operand compared in the "C" collation: UTF-8 byte order.
    private static func inC(_ sql: String) -> String { sql == "NULL" ? sql : "(\(sql) COLLATE \"C\")" }

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
                  column.attribute?.type == key.attribute.type, column.kind == Kind(queryType: key.attribute.type),
                  [.integer, .double, .string, .date].contains(column.kind) else { return nil }
            usesTypedColumns = true
            let term = column.kind == .string ? Self.inC(column.sqlName) : column.sqlName
            terms.append(key.order == .forward ? "\(term) ASC NULLS FIRST" : "\(term) DESC NULLS LAST")
        }
        terms.append("_seq ASC")
        return terms.joined(separator: ", ")
    }
}
#endif
