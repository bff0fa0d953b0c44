import Foundation

/// Translations of predicates by shape: a `#Predicate` written once and built again with other
/// captured values (`#Predicate { $0.id == id }` for each `id`) is translated once, and each
/// later build reuses that translation with its own values put in.
///
/// A predicate's shape is what its translation depends on besides its values: the model, the
/// expression's type (which fixes every node's kind and operand types), and the data its nodes
/// hold that the type does not fix: the key paths (by identity), the comparison operators and
/// which variable each reference names (``PredicateShape``). Reading a shape walks the tree once,
/// collecting the captured values in the order the translation meets them; the translation of
/// the first predicate of a shape is kept with a numbered parameter in place of each value
/// (``QueryTranslator/parameterizes``), so that another predicate of the shape needs only its
/// values put in.
///
/// Bounded: past ``capacity`` shapes the cache is emptied and fills again (a program builds
/// its predicates from a fixed set of `#Predicate`s, so this happens only to one that builds
/// predicates of endless shapes). Thread-safe (``Locked``, not `Mutex`, so that ThreadSanitizer
/// sees the lock).
package enum QueryTranslationCache {
    /// At most this many shapes are kept.
    package static let capacity = 512

    /// How many shapes are kept now.
    package static var count: Int { entries.withLock { $0.count } }

    /// What a shape translates to.
    enum Entry {
        /// The translation with parameters (`.constant(.int(n))`, and `[.int(n)]` for the
        /// constants of `contains`) in place of the predicate's values; `parameterCount` of them.
        case translated(QueryExpression, parameterCount: Int)
        /// The whole predicate does not translate (perhaps its first operands do): translated
        /// anew each time, as without the cache.
        case untranslated
    }

    /// The entries by shape; a shape holds its key paths, so that their identities stay theirs.
    private static let entries = Locked<[PredicateShape: Entry]>([:])

    /// The filter of `predicate`, from the cache when a predicate of its shape was translated
    /// before; `nil` when the predicate's expression is not translatable as a whole (the caller
    /// translates what it can).
    static func filter<T: PersistentModel>(_ predicate: Predicate<T>) -> FetchQuery.Filter? {
        #if DEBUG
        // A deliberate translation mistake must reach the translation, not a cached one.
        if QueryTranslationFault.active != nil { return nil }
        #endif
        guard let conforming = conformance(of: predicate.expression) else { return nil }
        return filter(predicate, as: conforming)
    }

    /// ``filter(_:)`` with the expression's type `Q` known: the expression is read as a `Q`
    /// (its dynamic type, which ``conformance(of:)`` gives), neither cast nor boxed again.
    private static func filter<T: PersistentModel, Q: QueryTranslatable>(_ predicate: Predicate<T>, as type: Q.Type) -> FetchQuery.Filter? {
        func same<E: StandardPredicateExpression<Bool>>(_ expression: E) -> Q { unsafeBitCast(expression, to: Q.self) }
        let translatable = _openExistential(predicate.expression, do: same)
        var reader = PredicateShapeReader(model: T.self, expressionType: Q.self, root: predicate.variable.key)
        translatable.readShape(&reader)
        let shape = reader.shape
        let entry = entries.withLock { $0[shape] } ?? add(shape, translating: translatable, model: T.self, root: predicate.variable.key)
        guard case let .translated(template, parameterCount) = entry, parameterCount == reader.values.count else { return nil }
        let expression = template.substituting(reader.values)
        return .expression(reader.hasNaN ? expression.foldingNaNComparisons() : expression)
    }

    /// Each expression type met, with its ``QueryTranslatable`` conformance (`nil`: none), so
    /// that a predicate's expression is cast once per type, not once per fetch (a dynamic cast
    /// to a protocol existential and a box for the result, about 1,900 instructions of a fetch
    /// by id, callgrind). Bounded as ``entries`` is: a program has a fixed set of `#Predicate`s.
    private static let conformances = Locked<[ObjectIdentifier: TranslatableType]>([:])

    /// A ``QueryTranslatable`` conformance, or its absence.
    private struct TranslatableType: @unchecked Sendable {
        // @unchecked: a metatype is immutable.
        let type: (any QueryTranslatable.Type)?
    }

    /// The expression's dynamic type when it is ``QueryTranslatable`` (`expression as? any
    /// QueryTranslatable`), `nil` when not; cast once per type, then found in ``conformances``.
    static func conformance(of expression: any StandardPredicateExpression<Bool>) -> (any QueryTranslatable.Type)? {
        let key = ObjectIdentifier(type(of: expression))
        if let known = conformances.withLock({ $0[key] }) { return known.type }
        let conforming = (expression as? any QueryTranslatable).map { type(of: $0) }
        conformances.withLock { conformances in
            if conformances.count >= capacity { conformances.removeAll(keepingCapacity: true) }
            conformances[key] = TranslatableType(type: conforming)
        }
        return conforming
    }

    /// Translates a predicate of a new shape with parameters for its values, and keeps it.
    private static func add<T: PersistentModel>(
        _ shape: PredicateShape, translating translatable: any QueryTranslatable, model: T.Type, root: PredicateExpressions.VariableID
    ) -> Entry {
        var translator = QueryTranslator(model: T.self, root: root, parameterizes: true)
        let entry: Entry
        if let template = try? translatable.queryExpression(&translator) {
            entry = .translated(template, parameterCount: translator.parameterCount)
        } else {
            entry = .untranslated
        }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[shape] = entry
        }
        return entry
    }
}

/// What a predicate's translation depends on besides its captured values (see
/// ``QueryTranslationCache``). Key paths compare by identity: a key path literal is one object
/// wherever it is evaluated again, and two equal key paths that are different objects only make
/// two entries.
struct PredicateShape: Hashable, @unchecked Sendable {
    // @unchecked: key paths are immutable objects.
    let model: ObjectIdentifier
    let expression: ObjectIdentifier
    /// The key paths of the tree, in the order the translation meets them.
    var keyPaths: [AnyKeyPath] = []
    /// The operators and variable references of the tree, in that order.
    var codes: [Int] = []

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.model == rhs.model && lhs.expression == rhs.expression && lhs.codes == rhs.codes
            && lhs.keyPaths.count == rhs.keyPaths.count && zip(lhs.keyPaths, rhs.keyPaths).allSatisfy { $0 === $1 }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(model)
        hasher.combine(expression)
        for keyPath in keyPaths { hasher.combine(ObjectIdentifier(keyPath)) }
        hasher.combine(codes)
    }
}

/// Walks a predicate's tree for its ``PredicateShape`` and its values, in the order
/// ``QueryTranslator`` meets them (each node's `readShape` mirrors its `queryExpression`).
struct PredicateShapeReader {
    private(set) var shape: PredicateShape
    /// The captured values, canonical: a scalar for a value, `.array` for the constants of `contains`.
    private(set) var values: [SnapshotValue] = []
    /// Whether a value is NaN (or holds one): the translation then folds the comparisons with it.
    private(set) var hasNaN = false
    /// The predicate's variable: the model.
    private let root: PredicateExpressions.VariableID
    /// The variables bound by optional chaining around the node being read, innermost last.
    private var bound: [PredicateExpressions.VariableID] = []

    init<T: PersistentModel>(model: T.Type, expressionType: any QueryTranslatable.Type, root: PredicateExpressions.VariableID) {
        shape = PredicateShape(model: ObjectIdentifier(T.self), expression: ObjectIdentifier(expressionType))
        self.root = root
    }

    mutating func add(operator code: Int) { shape.codes.append(code) }

    /// A key path on `variable`, or on something that is not a variable (`nil`).
    mutating func add(keyPath: AnyKeyPath, on variable: PredicateExpressions.VariableID?) {
        shape.keyPaths.append(keyPath)
        shape.codes.append(variable == root ? -1 : -2)
    }

    /// A variable used as a value: which binding it names (the translation fails for others).
    mutating func add(variable: PredicateExpressions.VariableID) {
        shape.codes.append(bound.lastIndex(of: variable) ?? -3)
    }

    mutating func add(value: SnapshotValue) {
        values.append(value)
        if value.isNaN { hasNaN = true }
    }

    mutating func add(values list: [SnapshotValue]) {
        values.append(.array(list))
        if list.contains(where: \.isNaN) { hasNaN = true }
    }

    /// Reads `body` with `variable` bound (optional chaining's transform).
    mutating func binding(_ variable: PredicateExpressions.VariableID, _ body: (inout Self) -> Void) {
        bound.append(variable)
        body(&self)
        bound.removeLast()
    }
}

extension QueryExpression {
    /// A parameterized translation with `values` put in for its parameters (see
    /// ``QueryTranslationCache``): `.constant(.int(n))` becomes `values[n]`, and the constants
    /// `[.int(n)]` of `contains` the elements of `values[n]`.
    func substituting(_ values: [SnapshotValue]) -> QueryExpression {
        switch self {
        case .attribute: return self
        case .constant(.int(let index)): return .constant(values[Int(index)])
        case .constant: return self   // `nil`: a literal, not a captured value
        case let .comparison(lhs, op, rhs): return .comparison(lhs.substituting(values), op, rhs.substituting(values))
        case let .and(lhs, rhs): return .and(lhs.substituting(values), rhs.substituting(values))
        case let .or(lhs, rhs): return .or(lhs.substituting(values), rhs.substituting(values))
        case .not(let operand): return .not(operand.substituting(values))
        case let .coalesce(lhs, rhs): return .coalesce(lhs.substituting(values), rhs.substituting(values))
        case let .ifPresent(wrapped, then): return .ifPresent(wrapped.substituting(values), then: then.substituting(values))
        case let .string(string, op, other): return .string(string.substituting(values), op, other.substituting(values))
        case let .isMember(element, parameter):
            guard case .int(let index)? = parameter.first, case .array(let constants) = values[Int(index)] else { return self }
            return .isMember(element.substituting(values), of: constants)
        }
    }
}
