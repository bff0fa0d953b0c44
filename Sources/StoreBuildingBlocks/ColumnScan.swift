import StoreProtocol

/// Fetches and counts decided on an entity's columns (``AttributeColumn``): the filter runs as
/// a ``ColumnFilter`` over slots, a sort with a limit keeps the best slots in ``TopRows``, and
/// only the rows returned are read from their slots. No snapshot is copied and no name is
/// looked up for a row the request does not return.
///
/// Each answers exactly as ``QueryEvaluator`` does over the same candidates, or `nil` when it
/// cannot without models: a filter or sort that did not translate whole, a row whose stored
/// values do not decide the filter, a sort value that does not read as its type or is NaN with
/// a limit, or an index walk (already cheap, see `indexedCandidates(_:)`).
extension EntityRows {
    /// Rows filtered a chunk at a time: a page stops the scan early, and the selection stays small.
    private static var chunkSize: Int { 4_096 }

    /// The snapshots `request` selects, sorted and paged; `nil` when the columns cannot decide it.
    /// - Complexity: O(*n*) typed comparisons per operand of the filter's `&&` (or O(*r*) for
    ///   *r* rows an index finds), O(*m* log *k*) comparisons for *m* matches and a limit *k*.
    func scan<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) -> [DefaultSnapshot]? {
        // A fetch by key: its rows without planning a scan, and without copying the descriptor.
        if let found = equalityLookup(request.query) { return found }
        let descriptor = request.descriptor
        switch request.query.sort {
        case .unsorted:
            let enough = descriptor.fetchLimit.map { max(0, descriptor.fetchOffset ?? 0) &+ max(0, $0) } ?? Int.max
            var matched: [Int] = []
            guard enough > 0 else { return [] }
            let decided = forEachMatch(request) { chunk in
                matched.append(contentsOf: chunk.prefix(enough - matched.count))
                return matched.count < enough
            }
            guard decided == true else { return nil }
            return descriptor.page(matched).map(row(at:))
        case .keys(let keys):
            var columnsOfKeys: [AttributeColumn] = []
            for key in keys {
                guard let column = columns.first(where: { $0.attribute == key.attribute }) else { return nil }
                columnsOfKeys.append(column)
            }
            if let limit = descriptor.fetchLimit {
                let start = max(0, descriptor.fetchOffset ?? 0)
                if keys.count == 1, let best = typedTop(start &+ max(0, limit), columnsOfKeys[0], keys[0], request) {
                    return best.dropFirst(start).map(row(at:))
                }
                guard var top = TopRows<Int>(start &+ max(0, limit), by: keys) else { return nil }
                var sortable = true
                let first = FirstSortValues(columnsOfKeys[0], keys[0])
                var worst = first.threshold(top.worstFirst)
                let decided = forEachMatch(request) { chunk in
                    for slot in chunk {
                        // Most rows sort after the worst kept: passed over on the typed value.
                        if let worst, first.sortsAfter(slot, worst) { continue }
                        guard top.offer(position: slot, { columnsOfKeys[$0].value(at: slot) }, payload: slot) else {
                            sortable = false
                            return false
                        }
                        worst = first.threshold(top.worstFirst)
                    }
                    return true
                }
                guard decided == true, sortable else { return nil }
                return top.rows.dropFirst(start).map(row(at:))
            }
            var matched: [QueryEvaluator.Row<DefaultSnapshot, T>] = []
            let decided = forEachMatch(request) { chunk in
                matched.append(contentsOf: chunk.map { QueryEvaluator.Row(snapshot: row(at: $0)) })
                return true
            }
            guard decided == true else { return nil }
            return QueryEvaluator.sortedByStoredValues(matched, keys, offset: descriptor.fetchOffset, limit: nil)
        case .untranslated:
            return nil
        }
    }

    /// The first `k` slots the filter selects by one key over a real, date or integer column,
    /// compared as plain numbers in a heap of (value, slot): the order ``TopRows`` gives when
    /// every value is in the typed array and none is NaN. `nil` otherwise (a `nil`, a value
    /// kept aside or one that does not read as the type, a NaN, another column), or when the
    /// filter cannot run on the columns: ``TopRows`` then decides.
    /// - Complexity: O(*n*) filter evaluations, O(*m* log *k*) comparisons for *m* rows that enter.
    private func typedTop<T: PersistentModel>(
        _ k: Int, _ column: AttributeColumn, _ key: QuerySortKey, _ request: DataStoreFetchRequest<T>
    ) -> [Int]? {
        guard k > 0 else { return [] }
        // The heaps are generic only over the value, so that they are specialised for it even
        // where `T` is not known.
        let descending = key.order == .reverse, cells = column.cells
        var typed = true
        switch column.storage {
        case .reals, .dates:
            var top = TypedTop<Double>(k, descending: descending)
            let values = column.reals
            let decided = forEachMatch(request) { chunk in
                typed = top.offer(chunk, values, cells)
                return typed
            }
            return decided == true && typed ? top.slots : nil
        case .integers:
            var top = TypedTop<Int64>(k, descending: descending)
            let values = column.integers
            let decided = forEachMatch(request) { chunk in
                typed = top.offer(chunk, values, cells)
                return typed
            }
            return decided == true && typed ? top.slots : nil
        case .strings, .uuids, .bools:
            return nil
        }
    }

    /// How many rows `request` selects, with its offset and limit; `nil` when the columns
    /// cannot decide it.
    /// - Complexity: O(*n*) typed comparisons per operand of the filter's `&&` (or O(*r*) for
    ///   *r* rows an index finds); no row is read.
    func scanCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) -> Int? {
        var count = 0
        guard forEachMatch(request, { count += $0.count; return true }) == true else { return nil }
        let descriptor = request.descriptor
        let remaining = max(0, count - max(0, descriptor.fetchOffset ?? 0))
        return descriptor.fetchLimit.map { min(remaining, max(0, $0)) } ?? remaining
    }

    /// Hands the slots the request's filter selects among its candidates to `body`, a chunk
    /// at a time in slot order, until it returns `false`. `nil` when the filter cannot run on
    /// the columns or the candidates are not slots; `false` when a row's stored values could
    /// not decide it.
    private func forEachMatch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>, _ body: ([Int]) -> Bool) -> Bool? {
        // A request's query is its descriptor translated, whose filter is `.all` exactly when it
        // has no predicate: read there, not from `descriptor.predicate`, whose optional of a
        // generic `Predicate` costs a fetch three runtime metadata lookups.
        let hasPredicate: Bool
        if case .all = request.query.filter { hasPredicate = false } else { hasPredicate = true }
        guard let liveness = columns.first,
              let filter = ColumnFilter(request.query.filter, hasPredicate: hasPredicate, columns: columns)
        else { return nil }
        // The translated filter finds `$0.id == value` for UUID and String ids (and indexed
        // attributes) in the key index. Only when that finds nothing to look up is the predicate
        // itself read for an id of another type: reading it casts its expression to generic
        // types, about 8,000 instructions, most of a fetch by id's time in the store.
        var candidates = indexedCandidateSlots(request)
        if case .scan = candidates, let key = SnapshotQuery.primaryKey(selectedBy: request.descriptor.predicate) {
            // `$0.id == value`: the one row with that key, if any (the filter still decides).
            candidates = .lookup(slotByKey[key].map { [$0] } ?? [])
        }
        var selection: [Int] = []
        switch candidates {
        case .lookup(let found):
            selection.reserveCapacity(min(found.count, Self.chunkSize))
            for start in stride(from: 0, to: found.count, by: Self.chunkSize) {
                selection.removeAll(keepingCapacity: true)
                selection.append(contentsOf: found[start..<min(found.count, start + Self.chunkSize)])
                guard filter.filter(&selection) else { return false }
                guard body(selection) else { return true }
            }
        case .scan:
            let cells = liveness.cells
            selection.reserveCapacity(min(cells.count, Self.chunkSize))
            for start in stride(from: 0, to: cells.count, by: Self.chunkSize) {
                selection.removeAll(keepingCapacity: true)
                for slot in start..<min(cells.count, start + Self.chunkSize) where cells[slot] != .empty { selection.append(slot) }
                guard filter.filter(&selection) else { return false }
                guard body(selection) else { return true }
            }
        case .walk:
            return nil
        }
        return true
    }

    /// The row in a live slot. (Internal: `EntityRows.equalityLookup(_:)` reads its rows here too.)
    func row(at slot: Int) -> DefaultSnapshot {
        guard let row = slots[slot] else { preconditionFailure("slot \(slot) of \(entity.name) is empty, yet its columns hold a row") }
        return row
    }
}

/// The first sort key's typed values (a real, date or integer column), to pass over a row that
/// sorts after the worst kept without making a `SnapshotValue`: strictly after, so that a row
/// tied with it still goes to ``TopRows`` (ties go by position). A NaN, a `nil` or a value kept
/// aside is never passed over here.
private struct FirstSortValues {
    private let column: AttributeColumn
    private let reals: [Double]
    private let integers: [Int64]
    private let descending: Bool
    private let typed: Bool

    init(_ column: AttributeColumn, _ key: QuerySortKey) {
        self.column = column
        reals = column.reals
        integers = column.integers
        descending = key.order == .reverse
        switch column.storage {
        case .reals, .dates, .integers: typed = true
        case .strings, .uuids, .bools: typed = false
        }
    }

    /// The worst kept value as a `Double` or `Int64` bit pattern; `nil` when it is none or not typed.
    func threshold(_ worst: SnapshotValue?) -> Threshold? {
        guard typed, let worst else { return nil }
        switch worst {
        case .double(let v) where !v.isNaN: return .real(v)
        case .date(let d) where !d.timeIntervalSinceReferenceDate.isNaN: return .real(d.timeIntervalSinceReferenceDate)
        case .int(let v): return .integer(v)
        default: return nil
        }
    }

    enum Threshold {
        case real(Double)
        case integer(Int64)
    }

    /// Whether the row in `slot` sorts strictly after `worst` by its typed value.
    @inline(__always)
    func sortsAfter(_ slot: Int, _ worst: Threshold) -> Bool {
        guard column.cells[slot] == .value else { return false }
        switch worst {
        case .real(let w):
            let v = reals[slot]
            return descending ? v < w : v > w
        case .integer(let w):
            let v = integers[slot]
            return descending ? v < w : v > w
        }
    }
}

/// The first `k` slots by one typed value in a heap of plain (value, slot) pairs: by value in
/// the key's order, ties by slot, as ``TopRows`` orders them when every value is in the typed
/// array and none is NaN (`EntityRows.typedTop`).
private struct TypedTop<V: Comparable> {
    private let k: Int
    private let descending: Bool
    private var heap: [(value: V, slot: Int)] = []   // a max-heap: heap[0] comes last of those kept

    init(_ k: Int, descending: Bool) {
        self.k = k
        self.descending = descending
        heap.reserveCapacity(k)
    }

    /// Whether `a` comes before `b`.
    @inline(__always)
    private func before(_ a: (value: V, slot: Int), _ b: (value: V, slot: Int)) -> Bool {
        if a.value != b.value { return descending ? a.value > b.value : a.value < b.value }
        return a.slot < b.slot
    }

    /// Offers the slots of `chunk`; `false` when one has no typed value or a NaN (a value not
    /// equal to itself), which only ``TopRows`` orders as a full sort would.
    mutating func offer(_ chunk: [Int], _ values: [V], _ cells: [AttributeColumn.Cell]) -> Bool {
        for slot in chunk {
            let value = values[slot]
            guard cells[slot] == .value, value == value else { return false }
            let entry = (value: value, slot: slot)
            if heap.count < k {
                heap.append(entry)
                var child = heap.count - 1
                while child > 0 {
                    let parent = (child - 1) / 2
                    guard before(heap[parent], heap[child]) else { break }
                    heap.swapAt(parent, child)
                    child = parent
                }
            } else if before(entry, heap[0]) {
                heap[0] = entry
                var parent = 0
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    var last = parent
                    if left < heap.count, before(heap[last], heap[left]) { last = left }
                    if right < heap.count, before(heap[last], heap[right]) { last = right }
                    if last == parent { break }
                    heap.swapAt(parent, last)
                    parent = last
                }
            }
        }
        return true
    }

    /// The slots kept, first first.
    var slots: [Int] { heap.sorted(by: before).map(\.slot) }
}
