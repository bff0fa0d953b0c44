import Foundation

extension FetchQuery {
    /// Translates a descriptor's predicate and sort (see ``FetchQuery``).
    ///
    /// Translated: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) of attributes, constants and
    /// captured values of type `Bool`, integers, `Float`, `Double`, `String`, `Date` and `UUID`
    /// (and their optionals, `nil` included); `&&`, `||`, `!`; `??`; optional chaining;
    /// `String.contains(_:)` and `starts(with:)`; `constants.contains($0.attribute)` for an
    /// `Array` or `Set` of constants; a `Bool` attribute used as a condition. Sorts by such
    /// attributes built by `SortDescriptor`'s key-path initializers. Everything else (force
    /// unwraps, arithmetic, enums, structs, collections in the model, nested key paths, …) is
    /// reported as untranslated.
    ///
    /// A comparison with a NaN constant (`Double`, `Float`, or a `Date` of NaN interval) becomes
    /// the constant it always is, `false` (`true` for `!=`), and NaN is left out of `contains`
    /// lists: NaN equals nothing and orders with nothing in Swift, where SQL databases find it
    /// equal to itself, so no store has to render one. (A NaN inside `??` stays.)
    ///
    /// A predicate translated whole is translated once per shape: the same `#Predicate` built
    /// again with other captured values reuses the first one's translation with its own values
    /// put in (a bounded, thread-safe cache keyed by the model, the expression's type, its key
    /// paths and operators).
    /// - Complexity: O(*n*) in the size of the predicate and the number of sort descriptors.
    public init<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) {
        self.init(
            entityName: T.entityName, filter: Self.filter(descriptor.predicate), sort: Self.sort(descriptor.sortBy),
            fetchOffset: descriptor.fetchOffset, fetchLimit: descriptor.fetchLimit)
    }

    static func filter<T: PersistentModel>(_ predicate: Predicate<T>?) -> Filter {
        guard let predicate else { return .all }
        if let cached = QueryTranslationCache.filter(predicate) { return cached }
        var translator = QueryTranslator(model: T.self, root: predicate.variable.key)
        do {
            return .expression(try translator.translate(predicate.expression).foldingNaNComparisons())
        } catch {
            if let leading = translator.leadingConjuncts(of: predicate.expression) {
                return .narrowed(leading.foldingNaNComparisons(), untranslated: error.reason)
            }
            return .untranslated(error.reason)
        }
    }

    static func sort<T: PersistentModel>(_ sortBy: [SortDescriptor<T>]) -> Sort {
        // `count`, not `isEmpty`: `isEmpty` is `Collection`'s, which this unspecialized code
        // reaches through the metadata of `[SortDescriptor<T>]` (about 1,000 instructions, callgrind).
        guard sortBy.count > 0 else { return .unsorted }
        let attributes = ModelAttributes.of(T.self)
        var keys: [QuerySortKey] = []
        for sort in sortBy {
            guard let keyPath = sort.keyPath, let name = attributes.name(of: keyPath),
                  let listed = attributes.keyPath(named: name) else {
                return .untranslated("a SortDescriptor<\(T.self)> does not sort by a stored attribute")
            }
            guard let scalar = type(of: keyPath).valueType as? any QueryScalar.Type, let type = scalar.queryValueType else {
                return .untranslated("the sort by \(name) compares values of type \(type(of: keyPath).valueType)")
            }
            // Translate only a SortDescriptor equal to the one its key path, order and string
            // comparator build: then its comparison is known (a ComparableComparator or that
            // comparator), not one whose `order` was changed after it was made.
            let comparator = sort.stringComparator
            guard let rebuilt = scalar.sortDescriptor(listed, order: sort.order, comparator: comparator), rebuilt == sort else {
                return .untranslated("the sort by \(name) uses a comparison that cannot be read")
            }
            keys.append(QuerySortKey(
                attribute: QueryAttribute(name: name, type: type, isOptional: scalar.isQueryOptional),
                order: sort.order, stringComparator: comparator))
        }
        return .keys(keys)
    }
}

/// Why (part of) a predicate has no translation: the expression type, for diagnostics.
struct QueryUntranslatable: Error {
    var reason: String
}

/// A `PredicateExpressions` type that has a ``QueryExpression``, when its operands do (declared
/// by conditional conformances in PredicateExpressions+QueryTranslatable.swift).
protocol QueryTranslatable {
    func queryExpression(_ translator: inout QueryTranslator) throws(QueryUntranslatable) -> QueryExpression
    /// Reads the node's part of the predicate's shape and its values, in the order
    /// ``queryExpression(_:)`` meets them (see ``QueryTranslationCache``).
    func readShape(_ reader: inout PredicateShapeReader)
}

/// Walks a predicate's expression tree.
struct QueryTranslator {
    /// The predicate's variable: the model.
    let root: PredicateExpressions.VariableID
    /// The stored name of a model key path.
    let attributeName: (AnyKeyPath) -> String?
    /// Variables bound by optional chaining, to the expression they unwrap.
    var bound: [PredicateExpressions.VariableID: QueryExpression] = [:]
    /// Whether captured values become numbered parameters, `.constant(.int(n))` (and `[.int(n)]`
    /// for the constants of `contains`), for ``QueryTranslationCache``.
    let parameterizes: Bool
    /// How many parameters the translation has made.
    private(set) var parameterCount = 0
    #if DEBUG
    /// A deliberate mistake, for the tests that show the conformance suite catches one.
    let fault = QueryTranslationFault.active
    #endif

    init<T: PersistentModel>(model: T.Type, root: PredicateExpressions.VariableID, parameterizes: Bool = false) {
        self.root = root
        self.parameterizes = parameterizes
        let attributes = ModelAttributes.of(T.self)
        attributeName = { attributes.attributeName(of: $0) }   // a relationship is no value a store compares
    }

    /// The next parameter, when the translation ``parameterizes``; `nil` otherwise.
    mutating func nextParameter() -> SnapshotValue? {
        guard parameterizes else { return nil }
        defer { parameterCount += 1 }
        return .int(Int64(parameterCount))
    }

    /// The translation of an expression, or why it has none.
    mutating func translate(_ expression: Any) throws(QueryUntranslatable) -> QueryExpression {
        guard let translatable = expression as? any QueryTranslatable else {
            throw QueryUntranslatable(reason: "\(type(of: expression)) has no translation")
        }
        return try translatable.queryExpression(&self)
    }

    /// For `a && b && …` whose first operands translate: those operands (a row must satisfy
    /// them, and when it does not, Swift evaluates no further operand); `nil` when the first does
    /// not translate.
    mutating func leadingConjuncts(of expression: Any) -> QueryExpression? {
        guard let conjunction = expression as? any QueryConjunction else { return nil }
        if let lhs = try? translate(conjunction.lhsExpression) {
            return leadingConjuncts(of: conjunction.rhsExpression).map { .and(lhs, $0) } ?? lhs
        }
        return leadingConjuncts(of: conjunction.lhsExpression)
    }
}

/// `PredicateExpressions.Conjunction`, whatever its operands, for ``QueryTranslator/leadingConjuncts(of:)``.
protocol QueryConjunction {
    var lhsExpression: Any { get }
    var rhsExpression: Any { get }
}

/// A constant collection, `constants.contains(…)`: `Array` and `Set` of ``QueryScalar``s, whose
/// `contains` is `==` on each element (`Set` hashes consistently with `==`).
protocol QueryConstantCollection {
    var queryConstants: [SnapshotValue] { get }
}

extension Array: QueryConstantCollection where Element: QueryScalar {
    var queryConstants: [SnapshotValue] { map(\.querySnapshotValue) }
}

extension Set: QueryConstantCollection where Element: QueryScalar {
    var queryConstants: [SnapshotValue] { map(\.querySnapshotValue) }
}

#if DEBUG
/// Deliberate translation mistakes, set only by tests (debug builds) to check that the
/// conformance suite's differential cases catch a wrong translation.
package enum QueryTranslationFault: Sendable {
    /// `<` translated as `<=`.
    case lessThanAsLessThanOrEqual

    /// The fault of the current task, `nil` normally.
    @TaskLocal package static var active: QueryTranslationFault?
}
#endif
