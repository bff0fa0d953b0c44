import Foundation

// Which `PredicateExpressions` types translate, and to what. Each conforms to
// `QueryTranslatable` only when its operands do, so a tree translates exactly when every node
// does; a type not listed here (ForcedUnwrap, Arithmetic, Conditional, …) ends the translation.

extension PredicateExpressions.Value: QueryTranslatable where Output: QueryScalar {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        guard Output.queryValueType != nil else { throw QueryUntranslatable(reason: "a constant of type \(Output.self)") }
        return .constant(translator.nextParameter() ?? value.querySnapshotValue)
    }

    func readShape(_ reader: inout PredicateShapeReader) { reader.add(value: value.querySnapshotValue) }
}

extension PredicateExpressions.NilLiteral: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .constant(.null)
    }

    func readShape(_ reader: inout PredicateShapeReader) {}
}

extension PredicateExpressions.KeyPath: QueryTranslatable where Output: QueryScalar {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        guard let variable = Self.variableKey(of: root), variable == translator.root,
              let name = translator.attributeName(keyPath as AnyKeyPath), let type = Output.queryValueType else {
            throw QueryUntranslatable(reason: "the key path \(keyPath) is not a stored attribute of the model")
        }
        return .attribute(QueryAttribute(name: name, type: type, isOptional: Output.isQueryOptional))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        reader.add(keyPath: keyPath, on: Self.variableKey(of: root))
    }

    /// The variable the key path reads from, `nil` when its root is not a variable. Asked of the
    /// type first: `#Predicate` roots a key path at a `Variable`, and comparing types costs a
    /// fraction of the cast to `any QueryVariable` (a conformance lookup, about 1,000
    /// instructions a fetch, callgrind).
    private static func variableKey(of root: Root) -> PredicateExpressions.VariableID? {
        if Root.self == PredicateExpressions.Variable<Root.Output>.self {
            return unsafeBitCast(root, to: PredicateExpressions.Variable<Root.Output>.self).key
        }
        return (root as? any QueryVariable)?.variableKey
    }
}

/// `PredicateExpressions.Variable`, whatever its type.
protocol QueryVariable {
    var variableKey: PredicateExpressions.VariableID { get }
}

extension PredicateExpressions.Variable: QueryVariable, QueryTranslatable {
    var variableKey: PredicateExpressions.VariableID { key }

    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        guard let bound = translator.bound[key] else { throw QueryUntranslatable(reason: "the model itself used as a value") }
        return bound
    }

    func readShape(_ reader: inout PredicateShapeReader) { reader.add(variable: key) }
}

extension PredicateExpressions.Equal: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .comparison(try lhs.queryExpression(&translator), .equal, try rhs.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        lhs.readShape(&reader)
        rhs.readShape(&reader)
    }
}

extension PredicateExpressions.NotEqual: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .comparison(try lhs.queryExpression(&translator), .notEqual, try rhs.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        lhs.readShape(&reader)
        rhs.readShape(&reader)
    }
}

extension PredicateExpressions.Comparison: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        let comparison: QueryComparison
        switch op {
        case .lessThan: comparison = .lessThan
        case .lessThanOrEqual: comparison = .lessThanOrEqual
        case .greaterThan: comparison = .greaterThan
        case .greaterThanOrEqual: comparison = .greaterThanOrEqual
        @unknown default: throw QueryUntranslatable(reason: "the comparison operator \(op)")
        }
        #if DEBUG
        if translator.fault == .lessThanAsLessThanOrEqual, comparison == .lessThan {
            return .comparison(try lhs.queryExpression(&translator), .lessThanOrEqual, try rhs.queryExpression(&translator))
        }
        #endif
        return .comparison(try lhs.queryExpression(&translator), comparison, try rhs.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        switch op {
        case .lessThan: reader.add(operator: 0)
        case .lessThanOrEqual: reader.add(operator: 1)
        case .greaterThan: reader.add(operator: 2)
        case .greaterThanOrEqual: reader.add(operator: 3)
        @unknown default: reader.add(operator: 4)
        }
        lhs.readShape(&reader)
        rhs.readShape(&reader)
    }
}

extension PredicateExpressions.Conjunction: QueryConjunction {
    var lhsExpression: Any { lhs }
    var rhsExpression: Any { rhs }
}

extension PredicateExpressions.Conjunction: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .and(try lhs.queryExpression(&translator), try rhs.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        lhs.readShape(&reader)
        rhs.readShape(&reader)
    }
}

extension PredicateExpressions.Disjunction: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .or(try lhs.queryExpression(&translator), try rhs.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        lhs.readShape(&reader)
        rhs.readShape(&reader)
    }
}

extension PredicateExpressions.Negation: QueryTranslatable where Wrapped: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .not(try wrapped.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) { wrapped.readShape(&reader) }
}

extension PredicateExpressions.NilCoalesce: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .coalesce(try lhs.queryExpression(&translator), try rhs.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        lhs.readShape(&reader)
        rhs.readShape(&reader)
    }
}

extension PredicateExpressions.OptionalFlatMap: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        let unwrapped = try wrapped.queryExpression(&translator)
        translator.bound[variable.key] = unwrapped
        defer { translator.bound[variable.key] = nil }
        return .ifPresent(unwrapped, then: try transform.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        wrapped.readShape(&reader)
        reader.binding(variable.key) { transform.readShape(&$0) }
    }
}

extension PredicateExpressions.SequenceContains: QueryTranslatable
where LHS: QueryConstantExpression, RHS: QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        let element = try element.queryExpression(&translator)
        return .isMember(element, of: translator.nextParameter().map { [$0] } ?? sequence.queryConstants)
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        element.readShape(&reader)
        reader.add(values: sequence.queryConstants)
    }
}

/// A `PredicateExpressions.Value` holding a constant collection.
protocol QueryConstantExpression {
    var queryConstants: [SnapshotValue] { get }
}

extension PredicateExpressions.Value: QueryConstantExpression where Output: QueryConstantCollection {
    var queryConstants: [SnapshotValue] { value.queryConstants }
}

extension PredicateExpressions.SequenceStartsWith: QueryTranslatable
where Base: QueryTranslatable, Prefix: QueryTranslatable, Base.Output == String, Prefix.Output == String {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .string(try base.queryExpression(&translator), .startsWith, try prefix.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        base.readShape(&reader)
        prefix.readShape(&reader)
    }
}

extension PredicateExpressions.CollectionContainsCollection: QueryTranslatable
where Base: QueryTranslatable, Other: QueryTranslatable, Base.Output == String, Other.Output == String {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression {
        .string(try base.queryExpression(&translator), .contains, try other.queryExpression(&translator))
    }

    func readShape(_ reader: inout PredicateShapeReader) {
        base.readShape(&reader)
        other.readShape(&reader)
    }
}
