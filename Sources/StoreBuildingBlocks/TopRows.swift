import Foundation
import StoreProtocol

/// The first `k` rows in the order of sort keys (rows no key tells apart by position), kept in
/// a bounded heap as rows are offered one by one: a row that sorts after the worst kept by its
/// first key is passed over without allocating. What ``QueryEvaluator`` and a column scan
/// (`EntityRows.scan(_:)`) use for a sorted fetch with a limit.
struct TopRows<Payload> {
    private let k: Int
    private let firstKey: QuerySortKey
    private let laterKeys: [QuerySortKey]
    /// A max-heap: `heap[0]` is the worst kept. It holds plain values and a slot in `kept`, so
    /// that sifting moves no payload.
    private var heap: [RankedRow] = []
    private var kept: [Payload] = []

    /// Keeps the first `k` rows by `keys`; `nil` without keys.
    init?(_ k: Int, by keys: [QuerySortKey]) {
        guard let first = keys.first else { return nil }
        self.k = k
        firstKey = first
        laterKeys = Array(keys.dropFirst())
    }

    /// Offers the row at `position` (positions increase as rows are offered), whose value of
    /// the sort key at each index `value` reads. `false` when one of them does not read as its type or is NaN: the order is
    /// then the one a full sort gives, which depends on every row.
    /// - Complexity: O(1) for a row that sorts after the worst kept, O(log *k*) otherwise.
    mutating func offer(position: Int, _ value: (Int) -> SnapshotValue?, payload: @autoclosure () -> Payload) -> Bool {
        guard k > 0 else { return true }
        guard let first = value(0), !IndexKey.isNaN(first) else { return false }
        var rest: [SnapshotValue] = []
        for index in laterKeys.indices {
            guard let value = value(index + 1), !IndexKey.isNaN(value) else { return false }
            rest.append(value)
        }
        if heap.count == k, firstKey.compare(first, heap[0].first) == .orderedDescending { return true }
        var ranked = RankedRow(position: position, first: first, rest: rest, slot: kept.count)
        if heap.count < k {
            kept.append(payload())
            heap.append(ranked)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard less(heap[parent], heap[child]) else { break }
                heap.swapAt(parent, child)
                child = parent
            }
        } else if less(ranked, heap[0]) {
            ranked.slot = heap[0].slot
            kept[ranked.slot] = payload()
            heap[0] = ranked
            siftDown()
        }
        return true
    }

    /// The first sort value of the worst row kept once `k` are kept: a row whose first value
    /// sorts after it cannot enter. `nil` before.
    var worstFirst: SnapshotValue? { heap.count == k && k > 0 ? heap[0].first : nil }

    /// The rows kept, best first.
    var rows: [Payload] { heap.sorted(by: less).map { kept[$0.slot] } }

    private func less(_ a: RankedRow, _ b: RankedRow) -> Bool {
        switch firstKey.compare(a.first, b.first) ?? .orderedSame {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: break
        }
        for (index, key) in laterKeys.enumerated() {
            switch key.compare(a.rest[index], b.rest[index]) ?? .orderedSame {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return a.position < b.position
    }

    /// Restores the max-heap below its root.
    private mutating func siftDown() {
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var largest = parent
            if left < heap.count, less(heap[largest], heap[left]) { largest = left }
            if right < heap.count, less(heap[largest], heap[right]) { largest = right }
            if largest == parent { return }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }
}

/// A row in ``TopRows``'s heap: its position among the rows offered, its sort values, and
/// where its payload is kept.
struct RankedRow {
    let position: Int
    let first: SnapshotValue
    let rest: [SnapshotValue]
    var slot: Int
}
