import Foundation
import StoreProtocol

/// A store's history in memory: records in transaction order, the deletion watermark that
/// expires tokens, and the token checks. Backends keep one and persist its records as they like.
public struct HistoryLog: Sendable {
    /// The kept records, oldest first, transaction numbers strictly increasing.
    public private(set) var records: [HistoryRecord]
    /// The number of the newest transaction ever recorded (kept when its record is deleted).
    public private(set) var lastTransactionNumber: Int64
    /// The history horizon: the newest deleted transaction; tokens before it are expired. Every
    /// store calls its horizon this (PostgresStore's `expired_through` column too).
    public private(set) var expiredThrough: Int64

    /// Makes a log from state read back from disk (empty by default). ``lastTransactionNumber`` becomes
    /// at least the newest record's number; the records must be in transaction order.
    public init(records: [HistoryRecord] = [], lastTransactionNumber: Int64 = 0, expiredThrough: Int64 = 0) {
        self.records = records
        self.lastTransactionNumber = max(lastTransactionNumber, records.last?.transactionNumber ?? 0)
        self.expiredThrough = expiredThrough
    }

    /// The next transaction number.
    public var nextTransactionNumber: Int64 { lastTransactionNumber + 1 }

    /// Records a transaction with the next number and returns it.
    @discardableResult
    public mutating func append(author: String?, changes: [HistoryRecord.Change], timestamp: Date = Date()) -> HistoryRecord {
        let record = HistoryRecord(transactionNumber: nextTransactionNumber, author: author, timestamp: timestamp, changes: changes)
        append(record)
        return record
    }

    /// Adds a record made elsewhere (read from disk); its number must be the newest.
    public mutating func append(_ record: HistoryRecord) {
        assert(record.transactionNumber > lastTransactionNumber, "history must grow in transaction order")
        records.append(record)
        lastTransactionNumber = record.transactionNumber
    }

    /// The kept records after `token`'s position for this store.
    /// - Throws: `HistoryError/Code/foreignToken` when the token has no position for this store
    ///   or is ahead of it; `HistoryError/Code/historyTokenExpired` when deleted history lies
    ///   after it.
    /// - Complexity: O(log *n*) to find the start.
    public func records(after token: DefaultHistoryToken?, storeIdentifier: String) throws -> ArraySlice<HistoryRecord> {
        guard let token else { return records[...] }
        guard let position = token.positions[storeIdentifier] else {
            throw HistoryError(.foreignToken,
                "The history token belongs to store(s) \(token.positions.keys.sorted().joined(separator: ", ")), "
                + "not to this store (\(storeIdentifier)). Use a token this store or its container returned.")
        }
        try Self.check(position, lastTransactionNumber: lastTransactionNumber, expiredThrough: expiredThrough,
                       storeIdentifier: storeIdentifier)
        var low = records.startIndex, high = records.endIndex
        while low < high {
            let mid = (low + high) / 2
            if records[mid].transactionNumber <= position { low = mid + 1 } else { high = mid }
        }
        return records[low...]
    }

    /// Checks a token's position against a store's history, for any backend.
    /// - Throws: `HistoryError/Code/foreignToken` when the position is negative or ahead of the store;
    ///   `HistoryError/Code/historyTokenExpired` when history after it was deleted.
    public static func check(_ position: Int64, lastTransactionNumber: Int64, expiredThrough: Int64, storeIdentifier: String) throws {
        guard position >= 0 else {
            throw HistoryError(.foreignToken,
                "The history token's position in store \(storeIdentifier) is \(position); positions are transaction numbers, "
                + "0 or more. The token was not made by a store: discard it.")
        }
        guard position <= lastTransactionNumber else {
            throw HistoryError(.foreignToken,
                "The history token is at transaction \(position), but store \(storeIdentifier) has only "
                + "\(lastTransactionNumber). It comes from another copy of the store, or the store was erased.")
        }
        guard position >= expiredThrough else {
            throw HistoryError(.historyTokenExpired,
                "The history token is at transaction \(position), but history of store \(storeIdentifier) up to "
                + "transaction \(expiredThrough) was deleted. Discard the token, re-read your data, and start again.")
        }
    }

    /// The typed transactions a descriptor selects.
    /// - Complexity: O(log *n* + *k*) for *k* transactions after the token.
    public func fetch(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, storeIdentifier: String, schema: Schema) throws -> [DefaultHistoryTransaction] {
        let selected = try records(after: descriptor.after, storeIdentifier: storeIdentifier)
        return try descriptor.apply(to: selected.lazy.map {
            DefaultHistoryTransaction(record: $0, storeIdentifier: storeIdentifier, schema: schema)
        })
    }

    /// Deletes the transactions a descriptor selects and returns their numbers.
    @discardableResult
    public mutating func delete(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, storeIdentifier: String, schema: Schema) throws -> Set<Int64> {
        let doomed = Set(try fetch(descriptor, storeIdentifier: storeIdentifier, schema: schema).map(\.transactionIdentifier))
        delete(transactionNumbers: doomed)
        return doomed
    }

    /// Deletes every transaction up to and including `transactionNumber`.
    public mutating func delete(through transactionNumber: Int64) {
        let bound = min(transactionNumber, lastTransactionNumber)
        guard bound > expiredThrough else { return }
        records.removeAll { $0.transactionNumber <= bound }
        expiredThrough = bound
    }

    /// Deletes what `retention` no longer keeps; returns whether anything was deleted.
    @discardableResult
    public mutating func apply(_ retention: HistoryRetention, now: Date = Date()) -> Bool {
        guard let bound = retentionBound(retention, now: now) else { return false }
        delete(through: bound)
        return true
    }

    /// The newest transaction `retention` would delete once `pending` is recorded too, `nil` when
    /// it keeps everything: lets a backend write the deletion in the same durable step as the save.
    public func retentionBound(_ retention: HistoryRetention, now: Date = Date(), pending: HistoryRecord? = nil) -> Int64? {
        let count = records.count + (pending == nil ? 0 : 1)
        func record(at index: Int) -> HistoryRecord { index < records.count ? records[index] : pending! }
        var bound: Int64 = 0
        if let maximum = retention.maximumTransactions, count > max(0, maximum) {
            bound = record(at: count - max(0, maximum) - 1).transactionNumber
        }
        if let age = retention.maximumAge {
            let cutoff = now.addingTimeInterval(-age)
            var index = count - 1
            while index >= 0, record(at: index).timestamp >= cutoff { index -= 1 }
            if index >= 0 { bound = max(bound, record(at: index).transactionNumber) }
        }
        return bound > expiredThrough ? bound : nil
    }

    /// Deletes these transactions; tokens before the newest of them expire.
    public mutating func delete(transactionNumbers: Set<Int64>) {
        guard let newest = transactionNumbers.max() else { return }
        records.removeAll { transactionNumbers.contains($0.transactionNumber) }
        expiredThrough = max(expiredThrough, newest)
    }

    /// Forgets everything, for a store's `erase()`. The erase takes a transaction number of its
    /// own and history is expired through it: every token taken before the erase is expired
    /// (even the newest transaction's, which would otherwise resume into history written after
    /// the data it describes was erased), the token of the store's current position after the
    /// erase is not, and numbers keep rising.
    public mutating func removeAll() {
        records.removeAll()
        lastTransactionNumber += 1
        expiredThrough = lastTransactionNumber
    }
}
