import StoreProtocol

/// A `QueryExpression` prepared for evaluation on stored values: built once per fetch, then
/// evaluated on each row's `[String: SnapshotValue]` without decoding a model.
///
/// Evaluation answers `true`, `false`, or `nil` when the stored values cannot decide it (a
/// value that does not read as its attribute's type, such as a missing non-optional value):
/// the caller then decides on the decoded model. `&&` and `||` decide when one side does
/// (`false && ?` is `false`), since translated expressions cannot throw.
public struct CompiledQueryExpression: Sendable {
    typealias Evaluate = @Sendable ([String: SnapshotValue]) -> SnapshotValue?
    private let evaluate: Evaluate

    /// Prepares `expression`.
    /// - Complexity: O(*n*) in the size of the expression (and of its constant collections).
    public init(_ expression: QueryExpression) {
        evaluate = Self.compile(expression)
    }

    /// Whether a row with these stored values matches; `nil` when its values cannot tell.
    /// - Complexity: O(*n*) in the size of the expression; O(1) per constant collection of
    ///   strings or UUIDs, O(*m*) in the others.
    public func matches(_ values: [String: SnapshotValue]) -> Bool? {
        guard case .bool(let result)? = evaluate(values) else { return nil }
        return result
    }

    private static func compile(_ expression: QueryExpression) -> Evaluate {
        switch expression {
        case .attribute(let attribute):
            return { attribute.value(in: $0) }
        case .constant(let value):
            return { _ in value }
        case let .comparison(.attribute(attribute), op, .constant(constant)):
            // The most common shape, without the two closure calls.
            return { values in
                guard let value = attribute.value(in: values) else { return nil }
                return op.evaluate(value, constant).map(SnapshotValue.bool)
            }
        case let .comparison(lhs, op, rhs):
            let lhs = compile(lhs), rhs = compile(rhs)
            return { values in
                guard let a = lhs(values), let b = rhs(values) else { return nil }
                return op.evaluate(a, b).map(SnapshotValue.bool)
            }
        case let .and(lhs, rhs):
            let lhs = compile(lhs), rhs = compile(rhs)
            return { values in
                let a = boolean(lhs(values))
                if a == false { return .bool(false) }
                let b = boolean(rhs(values))
                if b == false { return .bool(false) }
                guard let a, let b else { return nil }
                return .bool(a && b)
            }
        case let .or(lhs, rhs):
            let lhs = compile(lhs), rhs = compile(rhs)
            return { values in
                let a = boolean(lhs(values))
                if a == true { return .bool(true) }
                let b = boolean(rhs(values))
                if b == true { return .bool(true) }
                guard let a, let b else { return nil }
                return .bool(a || b)
            }
        case .not(let operand):
            let operand = compile(operand)
            return { values in boolean(operand(values)).map { .bool(!$0) } }
        case let .coalesce(lhs, rhs):
            let lhs = compile(lhs), rhs = compile(rhs)
            return { values in
                guard let a = lhs(values) else { return nil }
                return a == .null ? rhs(values) : a
            }
        case let .ifPresent(wrapped, then):
            let wrapped = compile(wrapped), then = compile(then)
            return { values in
                guard let a = wrapped(values) else { return nil }
                return a == .null ? .null : then(values)
            }
        case let .string(string, op, other):
            let string = compile(string), other = compile(other)
            return { values in
                guard case .string(let a)? = string(values), case .string(let b)? = other(values) else { return nil }
                return .bool(op.evaluate(a, b))
            }
        case let .isMember(element, constants):
            return member(compile(element), of: constants)
        }
    }

    /// `constants.contains(element)`: a hash lookup for strings and UUIDs (their hashing agrees
    /// with their `==`), else `==` on each constant.
    private static func member(_ element: @escaping Evaluate, of constants: [SnapshotValue]) -> Evaluate {
        let strings = constants.compactMap { if case .string(let s) = $0 { s } else { nil } }
        if strings.count == constants.count {
            let set = Set(strings)
            return { values in
                guard case .string(let value)? = element(values) else { return nil }
                return .bool(set.contains(value))
            }
        }
        let uuids = constants.compactMap { if case .uuid(let u) = $0 { u } else { nil } }
        if uuids.count == constants.count {
            let set = Set(uuids)
            return { values in
                guard case .uuid(let value)? = element(values) else { return nil }
                return .bool(set.contains(value))
            }
        }
        return { values in
            guard let value = element(values) else { return nil }
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

private func boolean(_ value: SnapshotValue?) -> Bool? {
    guard case .bool(let result)? = value else { return nil }
    return result
}
