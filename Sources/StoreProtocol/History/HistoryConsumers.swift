import Foundation

/// The readers of a container's history, each with the token it has processed, so that history
/// is deleted only once every one of them has read it (a known pain point with Core Data and
/// SwiftData history, where one process cannot tell what another still needs).
///
/// `HistoryConsumers()` keeps them in memory, for the readers of one process.
/// `HistoryConsumers(url:)` (`import StoreFiles`) keeps them in a JSON file that processes
/// share, updated atomically under a file lock:
///
/// ```swift
/// let consumers = HistoryConsumers(url: URL(filePath: "trips.json.consumers"))
/// try consumers.record(transactions.last!.token, for: "app")
/// try container.deleteHistoryReadByAllConsumers(consumers)
/// ```
public final class HistoryConsumers: Sendable {
    private let storage: any HistoryConsumerStorage

    /// Consumers kept in memory, for the readers of this process.
    public init() { storage = ConsumersInMemory() }

    /// Consumers kept by `storage` (package: how `StoreFiles` keeps them in a file).
    package init(storage: any HistoryConsumerStorage) { self.storage = storage }

    /// Every consumer's token.
    /// - Throws: for consumers kept in a file, `DataStoreError/Code/corruptStore` when the file
    ///   is not a consumers file, `DataStoreError/Code/ioFailure` when it cannot be read.
    public func tokens() throws -> [String: DefaultHistoryToken] { try storage.tokens() }

    /// The token a consumer has processed, `nil` when it has none yet.
    /// - Throws: as ``tokens()``.
    public func token(for consumer: String) throws -> DefaultHistoryToken? { try tokens()[consumer] }

    /// Records that `consumer` has processed everything up to `token`.
    /// - Throws: as ``tokens()``, and `DataStoreError/Code/ioFailure` when a file cannot be written.
    public func record(_ token: DefaultHistoryToken, for consumer: String) throws {
        try storage.update { $0[consumer] = token }
    }

    /// Forgets a consumer, so that history it has not read may be deleted.
    /// - Throws: as ``record(_:for:)``.
    public func remove(_ consumer: String) throws {
        try storage.update { $0[consumer] = nil }
    }
}

/// Where ``HistoryConsumers`` keeps its tokens: in memory here, in a file in `StoreFiles`.
package protocol HistoryConsumerStorage: Sendable {
    func tokens() throws -> [String: DefaultHistoryToken]
    /// Applies `change` to the tokens as one step: no other update comes between its read and write.
    func update(_ change: (inout [String: DefaultHistoryToken]) -> Void) throws
}

private struct ConsumersInMemory: HistoryConsumerStorage {
    let tokensByConsumer = Locked<[String: DefaultHistoryToken]>([:])

    func tokens() -> [String: DefaultHistoryToken] { tokensByConsumer.withLock { $0 } }
    func update(_ change: (inout [String: DefaultHistoryToken]) -> Void) { tokensByConsumer.withLock { change(&$0) } }
}

extension ModelContainer {
    /// Deletes, in each store, the history that every consumer in `consumers` has read: up to the
    /// lowest position any of them holds for that store. Deletes nothing in a store some consumer
    /// has no position for, and nothing at all when there are no consumers.
    /// - Throws: what the stores' `deleteHistory` throws, and what reading `consumers` throws.
    public func deleteHistoryReadByAllConsumers(_ consumers: HistoryConsumers) throws {
        try deleteHistory(readByAll: Array(try consumers.tokens().values))
    }
}
