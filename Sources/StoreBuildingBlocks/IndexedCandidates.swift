import StoreProtocol

/// How a fetch uses an entity's indexes (see `SnapshotTable.candidates(for:)`).
///
/// Among the operands of the filter's top-level `&&`:
/// - `attribute == constant` (either way round) and `constants.contains(attribute)` are looked
///   up in the attribute's index (in the table's key index for `id`);
/// - `<`, `<=`, `>`, `>=` between an indexed attribute and a constant narrow a range of that
///   attribute (two of them make a closed range), looked up in its index.
/// The smallest result is taken when it holds at most half the rows. Failing that, a request
/// sorted first by an indexed attribute, with a limit and a filter that translated whole, walks
/// that index in sort order and stops once it has the page. Otherwise the fetch scans.
extension EntityRows {
    /// Above this many rows, a lookup loses to a walk in sort order, which stops after the page.
    private static var lookupLimitBesideAWalk: Int { 4_096 }

    /// The rows to evaluate, or `nil` for a scan. Rows from a lookup come in insertion order;
    /// rows from a walk in sort order by the first sort key (rows with equal values in insertion
    /// order), enough of them to hold the page.
    func indexedCandidates<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) -> [DefaultSnapshot]? {
        switch indexedCandidateSlots(request) {
        case .lookup(let found): return found.compactMap { slots[$0] }
        case .walk(let rows): return rows
        case .scan: return nil
        }
    }

    /// What an index gives a fetch.
    enum IndexedCandidates {
        /// The slots a lookup found, in insertion order.
        case lookup([Int])
        /// The rows a walk in sort order found (see `indexedCandidates(_:)`).
        case walk([DefaultSnapshot])
        /// No index applies: every row.
        case scan
    }

    /// The slots of a lookup, the rows of a walk, or a scan (see `indexedCandidates(_:)`).
    func indexedCandidateSlots<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) -> IndexedCandidates {
        let walk = sortWalk(request)
        var limit = slotByKey.count / 2
        if walk != nil { limit = min(limit, Self.lookupLimitBesideAWalk) }
        if let keys = smallestLookup(request.query.filter, limit: limit) {
            // One key (`$0.id == value`, an equality that one row holds): its slot, without a
            // set and a sort (about 2,000 instructions of a fetch by id, callgrind).
            if keys.count == 1 { return .lookup(slotByKey[keys[0]].map { [$0] } ?? []) }
            var found = Set<Int>()
            for key in keys { if let slot = slotByKey[key] { found.insert(slot) } }
            return .lookup(found.sorted())
        }
        return walk.flatMap(walked).map(IndexedCandidates.walk) ?? .scan
    }

    // MARK: Lookups

    /// The primary keys of the most selective lookup, `nil` when none returns at most `limit`.
    private func smallestLookup(_ filter: FetchQuery.Filter, limit: Int) -> [SnapshotValue]? {
        let expression: QueryExpression
        switch filter {
        case .expression(let translated), .narrowed(let translated, _): expression = translated
        case .all, .untranslated: return nil
        }
        var best: [SnapshotValue]?
        func consider(_ keys: [SnapshotValue]?) {
            guard let keys, keys.count < best?.count ?? (limit + 1) else { return }
            best = keys
        }
        var ranges: [Int: (lower: AttributeIndex.Bound?, upper: AttributeIndex.Bound?)] = [:]
        for operand in expression.conjuncts {
            switch operand {
            case let .comparison(.attribute(attribute), op, .constant(constant)):
                narrow(&ranges, attribute, op, constant)
            case let .comparison(.constant(constant), op, .attribute(attribute)):
                narrow(&ranges, attribute, op.swapped, constant)
            default:
                break
            }
            guard let (attribute, constants) = Self.equality(operand) else { continue }
            if attribute.name == "id" {
                consider(idLookup(attribute, constants))
            } else if let index = indexes.first(where: { $0.attribute == attribute }) {
                consider(index.primaryKeys(equalToAnyOf: constants, limit: best?.count ?? limit))
            }
        }
        for (position, range) in ranges {
            consider(indexes[position].primaryKeys(from: range.lower, to: range.upper, limit: best?.count ?? limit))
        }
        return best
    }

    /// Narrows the range of an indexed attribute by `attribute op constant`: the higher lower
    /// bound and the lower upper bound win.
    private func narrow(_ ranges: inout [Int: (lower: AttributeIndex.Bound?, upper: AttributeIndex.Bound?)],
                        _ attribute: QueryAttribute, _ op: QueryComparison, _ constant: SnapshotValue) {
        guard op != .equal, let position = indexes.firstIndex(where: { $0.attribute == attribute }),
              let bound = indexes[position].bound(op, constant) else { return }
        var range = ranges[position] ?? (nil, nil)
        if let lower = bound.lower, range.lower.map({ $0.key < lower.key || ($0.key == lower.key && $0.inclusive) }) ?? true {
            range.lower = lower
        }
        if let upper = bound.upper, range.upper.map({ upper.key < $0.key || (upper.key == $0.key && $0.inclusive) }) ?? true {
            range.upper = upper
        }
        ranges[position] = range
    }

    /// `slotByKey` as an index of `id`: exact for UUID and String ids, whose primary key is the
    /// id itself.
    private func idLookup(_ attribute: QueryAttribute, _ constants: [SnapshotValue]) -> [SnapshotValue]? {
        guard idAttribute == attribute, attribute.type == .uuid || attribute.type == .string,
              constants.allSatisfy({ keyIndexFinds(attribute, $0) })
        else { return nil }
        return constants
    }

    /// Whether `slotByKey` finds the row of `attribute == constant` (``idLookup(_:_:)`` for one
    /// constant, without an array; `EntityRows.equalityLookup(_:)` asks it): `attribute` is `id`,
    /// a UUID or String, and the constant one too.
    func keyIndexFinds(_ attribute: QueryAttribute, _ constant: SnapshotValue) -> Bool {
        guard idAttribute == attribute else { return false }
        switch constant {
        case .uuid: return attribute.type == .uuid
        case .string: return attribute.type == .string
        default: return false
        }
    }

    // MARK: Walks in sort order

    /// A walk that can answer the request: its first sort key is an indexed attribute compared
    /// by Swift's `<` (no string comparator), the index holds every row in order, it has a limit,
    /// and its filter decides every row on stored values (so that the walk knows when it has the
    /// page).
    private struct SortWalk {
        let index: AttributeIndex
        let descending: Bool
        let filter: CompiledQueryExpression?
        let enough: Int
        /// The sort keys after the first.
        let tieBreakers: [QuerySortKey]
    }

    private func sortWalk<T>(_ request: DataStoreFetchRequest<T>) -> SortWalk? {
        guard case .keys(let keys) = request.query.sort, let first = keys.first, first.stringComparator == nil,
              let limit = request.descriptor.fetchLimit,
              let index = indexes.first(where: { $0.attribute == first.attribute }), index.holdsEveryRowInOrder
        else { return nil }
        let filter: CompiledQueryExpression?
        switch request.query.filter {
        case .all where request.descriptor.predicate == nil: filter = nil
        case .expression(let expression): filter = CompiledQueryExpression(expression)
        default: return nil
        }
        return SortWalk(index: index, descending: first.order == .reverse, filter: filter,
                        enough: max(0, request.descriptor.fetchOffset ?? 0) &+ max(0, limit), tieBreakers: Array(keys.dropFirst()))
    }

    /// The rows in the walk's order up to the last one with the value of the row that made the
    /// page full: every row that sorts before a row left out. Rows the filter rejects on stored
    /// values are left out; rows it cannot decide are kept (their models decide) but do not count.
    ///
    /// `nil` when a row kept has a value of a later sort key that is NaN or does not read as its
    /// type: sorting then depends on which rows take part (NaN is ordered with nothing), so only
    /// a scan gives the order a sort of every row gives.
    /// - Complexity: O(*w*) for the *w* rows walked.
    private func walked(_ walk: SortWalk) -> [DefaultSnapshot]? {
        var rows: [DefaultSnapshot] = []
        var matches = 0
        var lastValue: IndexKey?
        guard walk.enough > 0 else { return [] }
        walk.index.walk(descending: walk.descending) { value, primaryKey in
            if let lastValue, value != lastValue { return false }
            guard let row = row(primaryKey) else { return true }
            switch walk.filter?.matches(row.values) {
            case false?: return true
            case nil where walk.filter != nil: rows.append(row)
            default:
                rows.append(row)
                matches += 1
                if matches == walk.enough { lastValue = value }
            }
            return true
        }
        for row in rows {
            for key in walk.tieBreakers {
                guard let value = key.attribute.value(in: row.values), !IndexKey.isNaN(value) else { return nil }
            }
        }
        return rows
    }

    // MARK: Reading the filter

    /// The attribute and constants of `attribute == constant` (either way round) and of
    /// `constants.contains(attribute)`; `nil` for any other expression.
    private static func equality(_ expression: QueryExpression) -> (QueryAttribute, [SnapshotValue])? {
        switch expression {
        case let .comparison(.attribute(attribute), .equal, .constant(constant)),
             let .comparison(.constant(constant), .equal, .attribute(attribute)):
            return (attribute, [constant])
        case let .isMember(.attribute(attribute), constants):
            return (attribute, constants)
        default:
            return nil
        }
    }
}
