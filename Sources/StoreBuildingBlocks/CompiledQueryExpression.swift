import StoreProtocol

/// A `QueryExpression` prepared for evaluation on stored values: built once per fetch, then
/// evaluated on each row's `[String: SnapshotValue]` without decoding a model.
///
/// Evaluation answers `true`, `false`, or `nil` when the stored values cannot decide it (a
/// value that does not read as its attribute's type, such as a missing non-optional value):
/// the caller then decides on the decoded model. `&&` and `||` decide when one side does
/// (`false && ?` is `false`), since translated expressions cannot throw.
public struct CompiledQueryExpression: Sendable {
    /// The expression as a function of a row: `Row` is a stored row's values here, a slot of
    /// an entity's columns in a scan (`EntityRows.scan(_:)`).
    typealias Evaluate<Row> = @Sendable (Row) -> SnapshotValue?
    /// How a compiled expression reads an attribute from a row; `nil` when it cannot.
    typealias Reader<Row> = (QueryAttribute) -> Evaluate<Row>?
    private let evaluate: Evaluate<[String: SnapshotValue]>

    /// Prepares `expression`.
    /// - Complexity: O(*n*) in the size of the expression (and of its constant collections).
    public init(_ expression: QueryExpression) {
        // Every attribute reads from a row's values, so compiling cannot fail.
        evaluate = Self.compile(expression) { attribute in { attribute.value(in: $0) } } ?? { _ in nil }
    }

    /// Whether a row with these stored values matches; `nil` when its values cannot tell.
    /// - Complexity: O(*n*) in the size of the expression; O(1) per constant collection of
    ///   strings or UUIDs, O(*m*) in the others.
    public func matches(_ values: [String: SnapshotValue]) -> Bool? {
        guard case .bool(let result)? = evaluate(values) else { return nil }
        return result
    }

    /// `expression` as a function of a row, whose attributes `read` reads; `nil` when it
    /// cannot read one of them.
    static func compile<Row>(_ expression: QueryExpression, reading read: Reader<Row>) -> Evaluate<Row>? {
        switch expression {
        case .attribute(let attribute):
            return read(attribute)
        case .constant(let value):
            return { _ in value }
        case let .comparison(.attribute(attribute), op, .constant(constant)):
            // The most common shape, without the two closure calls.
            guard let value = read(attribute) else { return nil }
            return { row in
                guard let value = value(row) else { return nil }
                return op.evaluate(value, constant).map(SnapshotValue.bool)
            }
        case let .comparison(lhs, op, rhs):
            guard let lhs = compile(lhs, reading: read), let rhs = compile(rhs, reading: read) else { return nil }
            return { row in
                guard let a = lhs(row), let b = rhs(row) else { return nil }
                return op.evaluate(a, b).map(SnapshotValue.bool)
            }
        case let .and(lhs, rhs):
            guard let lhs = compile(lhs, reading: read), let rhs = compile(rhs, reading: read) else { return nil }
            return { row in
                let a = boolean(lhs(row))
                if a == false { return .bool(false) }
                let b = boolean(rhs(row))
                if b == false { return .bool(false) }
                guard let a, let b else { return nil }
                return .bool(a && b)
            }
        case let .or(lhs, rhs):
            guard let lhs = compile(lhs, reading: read), let rhs = compile(rhs, reading: read) else { return nil }
            return { row in
                let a = boolean(lhs(row))
                if a == true { return .bool(true) }
                let b = boolean(rhs(row))
                if b == true { return .bool(true) }
                guard let a, let b else { return nil }
                return .bool(a || b)
            }
        case .not(let operand):
            guard let operand = compile(operand, reading: read) else { return nil }
            return { row in boolean(operand(row)).map { .bool(!$0) } }
        case let .coalesce(lhs, rhs):
            guard let lhs = compile(lhs, reading: read), let rhs = compile(rhs, reading: read) else { return nil }
            return { row in
                guard let a = lhs(row) else { return nil }
                return a == .null ? rhs(row) : a
            }
        case let .ifPresent(wrapped, then):
            guard let wrapped = compile(wrapped, reading: read), let then = compile(then, reading: read) else { return nil }
            return { row in
                guard let a = wrapped(row) else { return nil }
                return a == .null ? .null : then(row)
            }
        case let .string(string, op, other):
            guard let string = compile(string, reading: read), let other = compile(other, reading: read) else { return nil }
            return { row in
                guard case .string(let a)? = string(row), case .string(let b)? = other(row) else { return nil }
                return .bool(op.evaluate(a, b))
            }
        case let .isMember(element, constants):
            return compile(element, reading: read).map { member($0, of: constants) }
        }
    }

    /// `constants.contains(element)`: a hash lookup for strings and UUIDs (their hashing agrees
    /// with their `==`), else `==` on each constant.
    private static func member<Row>(_ element: @escaping Evaluate<Row>, of constants: [SnapshotValue]) -> Evaluate<Row> {
        let strings = constants.compactMap { if case .string(let s) = $0 { s } else { nil } }
        if strings.count == constants.count {
            let set = Set(strings)
            return { row in
                guard case .string(let value)? = element(row) else { return nil }
                return .bool(set.contains(value))
            }
        }
        let uuids = constants.compactMap { if case .uuid(let u) = $0 { u } else { nil } }
        if uuids.count == constants.count {
            let set = Set(uuids)
            return { row in
                guard case .uuid(let value)? = element(row) else { return nil }
                return .bool(set.contains(value))
            }
        }
        return { row in
            guard let value = element(row) else { return nil }
            var undecided = false
            for constant in constants {
                switch QueryComparison.equal.evaluate(value, constant) {
                case true?: return .bool(true)
                case nil: undecided = true
                case false?: continue
                }
            }
            return undecided ? nil : .bool(false)
        }
    }
}

func boolean(_ value: SnapshotValue?) -> Bool? {
    guard case .bool(let result)? = value else { return nil }
    return result
}
