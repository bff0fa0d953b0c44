import Foundation
import StoreProtocol

/// The readers of a container's history, each with the token it has processed, so that history
/// is deleted only once every one of them has read it (a known pain point with Core Data and
/// SwiftData history, where one process cannot tell what another still needs).
///
/// Kept in a JSON file (shared by processes, updated atomically under a file lock), or in memory.
///
/// ```swift
/// let consumers = HistoryConsumers(url: URL(filePath: "trips.json.consumers"))
/// try consumers.record(transactions.last!.token, for: "app")
/// try container.deleteHistoryReadByAllConsumers(consumers)
/// ```
public final class HistoryConsumers: Sendable {
    private let url: URL?
    private let memory = Locked<[String: DefaultHistoryToken]>([:])

    /// Consumers kept in the file at `url`, or in memory when `nil`.
    public init(url: URL? = nil) { self.url = url }

    /// Every consumer's token.
    /// - Throws: `DataStoreError/Code/corruptStore` when the file is not a consumers file.
    public func tokens() throws -> [String: DefaultHistoryToken] {
        guard let url else { return memory.withLock { $0 } }
        return try FileLock(path: url.path + ".lock").withLock(exclusive: false) { try read(url) }
    }

    /// The token a consumer has processed, `nil` when it has none yet.
    public func token(for consumer: String) throws -> DefaultHistoryToken? { try tokens()[consumer] }

    /// Records that `consumer` has processed everything up to `token`.
    public func record(_ token: DefaultHistoryToken, for consumer: String) throws {
        try update { $0[consumer] = token }
    }

    /// Forgets a consumer, so that history it has not read may be deleted.
    public func remove(_ consumer: String) throws {
        try update { $0[consumer] = nil }
    }

    private func update(_ change: (inout [String: DefaultHistoryToken]) -> Void) throws {
        guard let url else {
            memory.withLock { change(&$0) }
            return
        }
        try FileLock(path: url.path + ".lock").withLock(exclusive: true) {
            var tokens = try read(url)
            change(&tokens)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try FileIO.replaceAtomically(url.path, with: try encoder.encode(tokens))
        }
    }

    private func read(_ url: URL) throws -> [String: DefaultHistoryToken] {
        guard try FileIO.identity(url.path) != nil else { return [:] }
        do {
            return try JSONDecoder().decode([String: DefaultHistoryToken].self, from: FileIO.read(url.path))
        } catch {
            throw DataStoreError(.corruptStore, "\(url.path) is not a history consumers file (\(error)). Remove it to start over.")
        }
    }
}

extension ModelContainer {
    /// Deletes, in each store, the history that every consumer in `consumers` has read: up to the
    /// lowest position any of them holds for that store. Deletes nothing in a store some consumer
    /// has no position for, and nothing at all when there are no consumers.
    /// - Throws: what the stores' `deleteHistory` throws.
    public func deleteHistoryReadByAllConsumers(_ consumers: HistoryConsumers) throws {
        try deleteHistory(readByAll: Array(try consumers.tokens().values))
    }
}
