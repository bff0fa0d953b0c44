import StoreProtocol

/// A translated filter compiled once per fetch into tests over an entity's columns
/// (``AttributeColumn``), run on a selection of slots: each operand of the filter's top-level
/// `&&` keeps the slots it holds for. `attribute op constant` on an integer, real, date or
/// string column is a tight loop over the typed array, and on another column (a UUID, a `Bool`)
/// a comparison of each slot's value, with no closure to compile (a fetch by id compiled two,
/// about 1,500 instructions, callgrind); any other operand is a compiled expression
/// (``CompiledQueryExpression``) that reads its attributes from the columns by slot.
///
/// The answers are ``CompiledQueryExpression``'s, row by row; a row that the stored values
/// cannot decide (a value that does not read as its type) makes the run report it, and the
/// caller then decides the whole request as ``QueryEvaluator`` does.
struct ColumnFilter {
    private enum Test {
        case integers(AttributeColumn, QueryComparison, Int64, SnapshotValue)
        case reals(AttributeColumn, QueryComparison, Double, SnapshotValue)
        case strings(AttributeColumn, QueryComparison, String, SnapshotValue)
        /// `attribute op constant` on another column (UUIDs, booleans), or with a constant of
        /// another type: the compiled expression's answer, without compiling closures.
        case values(AttributeColumn, QueryComparison, SnapshotValue)
        case expression(CompiledQueryExpression.Evaluate<Int>)
    }
    private let tests: [Test]

    /// The filter of a request, over `columns`; `nil` when it is not translated whole, or names
    /// an attribute that has no column (a model whose attribute differs from the schema's).
    init?(_ filter: FetchQuery.Filter, hasPredicate: Bool, columns: [AttributeColumn]) {
        switch filter {
        case .all where !hasPredicate:
            tests = []
        case .expression(let expression):
            var tests: [Test] = []
            for operand in expression.conjuncts {
                guard let test = Self.test(operand, columns) else { return nil }
                tests.append(test)
            }
            self.tests = tests
        case .all, .narrowed, .untranslated:
            return nil
        }
    }

    private static func test(_ operand: QueryExpression, _ columns: [AttributeColumn]) -> Test? {
        func column(_ attribute: QueryAttribute) -> AttributeColumn? { columns.first { $0.attribute == attribute } }
        let comparison: (QueryAttribute, QueryComparison, SnapshotValue)?
        switch operand {
        case let .comparison(.attribute(attribute), op, .constant(constant)): comparison = (attribute, op, constant)
        case let .comparison(.constant(constant), op, .attribute(attribute)): comparison = (attribute, op.swapped, constant)
        default: comparison = nil
        }
        if let (attribute, op, constant) = comparison, let column = column(attribute) {
            switch (column.storage, constant) {
            case (.integers, .int(let v)): return .integers(column, op, v, constant)
            case (.reals, .double(let v)): return .reals(column, op, v, constant)
            case (.dates, .date(let v)): return .reals(column, op, v.timeIntervalSinceReferenceDate, constant)
            case (.strings, .string(let v)): return .strings(column, op, v, constant)
            default: return .values(column, op, constant)
            }
        }
        let evaluate = CompiledQueryExpression.compile(operand) { attribute -> CompiledQueryExpression.Evaluate<Int>? in
            guard let column = column(attribute) else { return nil }
            return { column.value(at: $0) }
        }
        return evaluate.map(Test.expression)
    }

    /// Whether the filter keeps every row (no predicate).
    var keepsEveryRow: Bool { tests.isEmpty }

    /// Keeps the slots of `selection` (live rows) that the filter selects, in their order.
    /// `false` when the stored values of one of them cannot decide it.
    func filter(_ selection: inout [Int]) -> Bool {
        for test in tests {
            guard !selection.isEmpty else { return true }
            let decided: Bool
            switch test {
            case let .integers(column, op, value, constant):
                decided = Self.keep(&selection, column.integers, column, op, value, constant)
            case let .reals(column, op, value, constant):
                decided = Self.keep(&selection, column.reals, column, op, value, constant)
            case let .strings(column, op, value, constant):
                decided = Self.keep(&selection, column.strings, column, op, value, constant)
            case let .values(column, op, constant):
                decided = Self.keep(&selection) { slot in column.value(at: slot).flatMap { op.evaluate($0, constant) } }
            case .expression(let evaluate):
                decided = Self.keep(&selection) { boolean(evaluate($0)) }
            }
            guard decided else { return false }
        }
        return true
    }

    /// `attribute op constant` on a typed column, with one loop per operator.
    private static func keep<V: Comparable>(
        _ selection: inout [Int], _ values: [V], _ column: AttributeColumn, _ op: QueryComparison, _ value: V, _ constant: SnapshotValue
    ) -> Bool {
        switch op {
        case .equal: return keep(&selection, values, column, op, constant) { $0 == value }
        case .notEqual: return keep(&selection, values, column, op, constant) { $0 != value }
        case .lessThan: return keep(&selection, values, column, op, constant) { $0 < value }
        case .lessThanOrEqual: return keep(&selection, values, column, op, constant) { $0 <= value }
        case .greaterThan: return keep(&selection, values, column, op, constant) { $0 > value }
        case .greaterThanOrEqual: return keep(&selection, values, column, op, constant) { $0 >= value }
        }
    }

    /// Keeps the slots whose typed value `holds`; a slot without one (`nil`, a value kept aside,
    /// one that does not read as the type) is compared as ``QueryComparison`` compares.
    @inline(__always)
    private static func keep<V>(
        _ selection: inout [Int], _ values: [V], _ column: AttributeColumn, _ op: QueryComparison, _ constant: SnapshotValue,
        _ holds: (V) -> Bool
    ) -> Bool {
        var kept = 0, decided = true
        column.cells.withUnsafeBufferPointer { cells in
            values.withUnsafeBufferPointer { values in
                selection.withUnsafeMutableBufferPointer { selection in
                    for index in selection.indices {
                        let slot = selection[index]
                        let matches: Bool
                        if cells[slot] == .value {
                            matches = holds(values[slot])
                        } else if let stored = column.value(at: slot), let result = op.evaluate(stored, constant) {
                            matches = result
                        } else {
                            decided = false
                            matches = false
                        }
                        selection[kept] = slot
                        if matches { kept += 1 }
                    }
                }
            }
        }
        selection.removeSubrange(kept...)
        return decided
    }

    /// Keeps the slots for which `matches` is `true`; `false` when it is `nil` for one.
    private static func keep(_ selection: inout [Int], _ matches: (Int) -> Bool?) -> Bool {
        var kept = 0
        for index in selection.indices {
            let slot = selection[index]
            guard let result = matches(slot) else { return false }
            selection[kept] = slot
            if result { kept += 1 }
        }
        selection.removeSubrange(kept...)
        return true
    }
}

extension QueryExpression {
    /// The operands of the expression's top-level `&&`, left to right.
    var conjuncts: [QueryExpression] {
        var found: [QueryExpression] = []
        var pending = [self]
        while let operand = pending.popLast() {
            if case let .and(lhs, rhs) = operand {
                pending.append(rhs)
                pending.append(lhs)
            } else {
                found.append(operand)
            }
        }
        return found
    }
}
