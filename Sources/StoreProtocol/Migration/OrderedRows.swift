/// One entity's rows by primary key, in the order they were first stored: what a migration reads
/// and writes, so that rows keep their order across it.
package struct OrderedRows: Sendable {
    private var order: [SnapshotValue] = []
    private var values: [SnapshotValue: [String: SnapshotValue]] = [:]

    package init() {}

    package var isEmpty: Bool { values.isEmpty }

    /// Whether a row is stored under `key`.
    package func contains(_ key: SnapshotValue) -> Bool { values[key] != nil }

    /// Stores `row` under `key`, in place when the key is there, last otherwise.
    package mutating func write(_ key: SnapshotValue, _ row: [String: SnapshotValue]) {
        if values.updateValue(row, forKey: key) == nil { order.append(key) }
    }

    /// - Complexity: O(*n*): removals are rare (a migration's deletes, a journal's deletes of
    ///   rows kept unread).
    package mutating func remove(_ key: SnapshotValue) {
        guard values.removeValue(forKey: key) != nil, let index = order.firstIndex(of: key) else { return }
        order.remove(at: index)
    }

    /// The rows in order.
    package var all: [[String: SnapshotValue]] { order.compactMap { values[$0] } }
}
