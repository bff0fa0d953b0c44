import StoreProtocol

/// The counters a store reads back from its files (journal sequence numbers, transaction
/// numbers, how far history was deleted, segment numbers), checked before anything counts on
/// them.
///
/// A store adds to its counters (the next save is the last one's number plus one), so a damaged
/// or forged file holding `Int64.max` would trap the process on the next save. No store reaches
/// ``limit`` (2^62: a million saves a second for 146,000 years), so a value beyond it, or below
/// zero, is damage: `DataStoreError/Code/corruptStore`, and arithmetic on counters below it
/// cannot overflow.
public enum StoredCounter {
    /// The largest value a counter read from a file may hold.
    public static let limit: Int64 = 1 << 62

    /// `value`, when it lies in `minimum...limit`.
    /// - Parameters:
    ///   - value: The counter as read.
    ///   - name: What the counter is, for the message (`"journalSequence"`).
    ///   - minimum: The smallest value it may hold (0, or 1 for a transaction number).
    ///   - path: The file it was read from.
    /// - Throws: `DataStoreError/Code/corruptStore` naming the file, the counter and its value.
    @discardableResult
    public static func check(_ value: Int64, _ name: String, minimum: Int64 = 0, in path: String) throws -> Int64 {
        guard value >= minimum, value <= limit else {
            throw DataStoreError(.corruptStore,
                "\(path) holds \(name) \(value), which no store reaches (counters lie between \(minimum) and 2^62): the "
                + "file is damaged or was not written by this library. Restore the store from a backup; nothing was changed.")
        }
        return value
    }
}
