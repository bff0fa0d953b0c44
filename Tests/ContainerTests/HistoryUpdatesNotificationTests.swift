import Foundation
import MemoryStore
import StoreProtocol
import Testing

/// `ModelContainer.historyUpdates` over a store that tells of its saves (`SaveNotifying`): woken
/// by the notification rather than by polling, read at `maximumPollInterval` when notifications
/// are lost, and the observation ended with the stream.
@Suite struct HistoryUpdatesNotificationTests {
    struct NotifyingConfiguration: DataStoreConfiguration {
        typealias Store = NotifyingStore
        var name = "notifying-" + UUID().uuidString
        var schema: Schema?
        var allowsSave = true
        /// `false`: the store accepts observers and never calls them (notifications lost).
        var delivers = true
    }

    /// A memory store that calls its observers after each save, and says when the container
    /// first read its history and when an observation ended.
    final class NotifyingStore: DataStore, HistoryProviding, SaveNotifying {
        typealias Snapshot = DefaultSnapshot
        typealias HistoryType = DefaultHistoryTransaction

        final class Observer: SaveObservation {
            let onCancel: @Sendable () -> Void
            init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
            func cancel() { onCancel() }
        }

        let configuration: NotifyingConfiguration
        private let inner: MemoryStore
        private let handlers = Locked<[UUID: @Sendable () -> Void]>([:])
        /// Yields once per history read and once per ended observation.
        let reads: AsyncStream<Void>, ended: AsyncStream<Void>
        private let readsContinuation: AsyncStream<Void>.Continuation, endedContinuation: AsyncStream<Void>.Continuation
        var identifier: String { inner.identifier }
        var schema: Schema { inner.schema }
        var observerCount: Int { handlers.withLock { $0.count } }

        init(_ configuration: NotifyingConfiguration) throws {
            self.configuration = configuration
            inner = try MemoryStore(MemoryStoreConfiguration(name: configuration.name, schema: configuration.schema))
            (reads, readsContinuation) = AsyncStream.makeStream()
            (ended, endedContinuation) = AsyncStream.makeStream()
        }

        func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
            try inner.fetch(request)
        }
        func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
            let result = try inner.save(request)
            if configuration.delivers { for handler in handlers.withLock({ Array($0.values) }) { handler() } }
            return result
        }
        func erase() throws { try inner.erase() }
        func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
            defer { readsContinuation.yield() }
            return try inner.fetchHistory(descriptor)
        }
        func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws { try inner.deleteHistory(descriptor) }
        func currentHistoryToken() throws -> DefaultHistoryToken? { try inner.currentHistoryToken() }

        func observeSaves(_ handler: @escaping @Sendable () -> Void) throws -> Observer {
            let key = UUID()
            handlers.withLock { $0[key] = handler }
            return Observer { [handlers, endedContinuation] in
                if handlers.withLock({ $0.removeValue(forKey: key) }) != nil { endedContinuation.yield() }
            }
        }
    }

    func open(delivers: Bool) throws -> (ModelContainer, NotifyingStore) {
        let container = try ModelContainer(for: Place.self, configurations: NotifyingConfiguration(delivers: delivers))
        return (container, try #require(container.stores.first as? NotifyingStore))
    }

    /// The first transaction the stream yields, once its first read of history found none and a
    /// save was made after it.
    func firstUpdate(_ container: ModelContainer, _ store: NotifyingStore, maximumPollInterval: Duration) async throws -> String? {
        let start = try container.currentHistoryToken()
        let consumer = Task {
            for try await transaction in container.historyUpdates(after: start, pollInterval: .seconds(3_600),
                                                                  maximumPollInterval: maximumPollInterval) {
                return transaction.author
            }
            return nil
        }
        defer { consumer.cancel() }
        var reads = store.reads.makeAsyncIterator()
        _ = await reads.next()      // the stream read history once and found nothing
        try save([Place("Bergen")], to: container, author: "saved after the first read")
        return try await consumer.value
    }

    @Test("A save wakes the stream through the store's notification (polling would wait an hour)", .timeLimit(.minutes(1)))
    func aNotificationWakesTheStream() async throws {
        let (container, store) = try open(delivers: true)
        #expect(try await firstUpdate(container, store, maximumPollInterval: .seconds(3_600)) == "saved after the first read")
    }

    /// The control of the test above: with notifications lost, only the fallback read at
    /// `maximumPollInterval` brings the update (with an hour's, the test above would time out).
    @Test("Lost notifications: the update arrives at the next read of maximumPollInterval", .timeLimit(.minutes(1)))
    func lostNotificationsFallBackToReading() async throws {
        let (container, store) = try open(delivers: false)
        #expect(try await firstUpdate(container, store, maximumPollInterval: .milliseconds(20)) == "saved after the first read")
    }

    @Test("The stream observes the store while it runs and stops observing when it ends", .timeLimit(.minutes(1)))
    func theObservationEndsWithTheStream() async throws {
        let (container, store) = try open(delivers: true)
        let consumer = Task {
            for try await _ in container.historyUpdates(pollInterval: .seconds(3_600), maximumPollInterval: .seconds(3_600)) {}
        }
        var reads = store.reads.makeAsyncIterator()
        _ = await reads.next()
        #expect(store.observerCount == 1)
        consumer.cancel()
        var ended = store.ended.makeAsyncIterator()
        _ = await ended.next()
        #expect(store.observerCount == 0)
    }
}
