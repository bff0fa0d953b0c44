import DataStores
import Foundation
import MemoryStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 12: history from several stores is merged keeping each store's own order, so a token
/// never passes over one of its store's transactions, and without a sort each store is asked for
/// no more than the limit.
@Suite struct HistoryMergeTests {
    @Model final class Pin {
        var label = ""
        init() {}
    }

    struct SkewedClockConfiguration: DataStoreConfiguration {
        typealias Store = SkewedClockStore
        var name: String
        var schema: Schema?
        var allowsSave = true
        /// Transaction number -> the time the store's clock said, in seconds since 1970.
        var clock: [Int64: TimeInterval]
    }

    /// A memory store whose clock said `clock`'s times, and which records the limits it was asked for.
    final class SkewedClockStore: DataStore, HistoryProviding {
        typealias Snapshot = DefaultSnapshot
        typealias HistoryType = DefaultHistoryTransaction
        let configuration: SkewedClockConfiguration
        private let inner: MemoryStore
        let askedLimits = Locked<[Int?]>([])
        var identifier: String { inner.identifier }
        var schema: Schema { inner.schema }

        init(_ configuration: SkewedClockConfiguration) throws {
            self.configuration = configuration
            inner = try MemoryStore(MemoryStoreConfiguration(name: configuration.name, schema: configuration.schema))
        }

        func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
            try inner.fetch(request)
        }
        func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
            try inner.save(request)
        }
        func erase() throws { try inner.erase() }
        func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
            askedLimits.withLock { $0.append(descriptor.fetchLimit) }
            return try inner.fetchHistory(descriptor).map { transaction in
                var transaction = transaction
                transaction.timestamp = Date(timeIntervalSince1970: configuration.clock[transaction.transactionIdentifier] ?? 0)
                return transaction
            }
        }
        func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws { try inner.deleteHistory(descriptor) }
        func currentHistoryToken() throws -> DefaultHistoryToken? { try inner.currentHistoryToken() }
    }

    /// Store A's clock went back between its two saves (10 s, then 5 s); store B saved at 7 s.
    private func makeContainer() throws -> (ModelContainer, SkewedClockStore, SkewedClockStore) {
        let container = try ModelContainer(
            for: Schema([Note.self, Pin.self]),
            configurations: [
                SkewedClockConfiguration(name: "a-\(UUID())", schema: Schema([Note.self]), clock: [1: 10, 2: 5]),
                SkewedClockConfiguration(name: "b-\(UUID())", schema: Schema([Pin.self]), clock: [1: 7]),
            ])
        let context = ModelContext(container)
        context.insert(Note())
        try context.save()
        context.insert(Pin())
        try context.save()
        context.insert(Note())
        try context.save()
        let stores = container.stores.compactMap { $0 as? SkewedClockStore }
        return (container, stores[0], stores[1])
    }

    @Test func pagingOneAtATimeReadsEveryTransactionOnceWhenAClockWentBack() throws {
        let (container, a, b) = try makeContainer()
        var token: DefaultHistoryToken?
        var seen: [String] = []
        for _ in 0..<5 {
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(after: token)
            descriptor.fetchLimit = 1
            guard let transaction = try container.fetchHistory(descriptor).first else { break }
            seen.append("\(transaction.storeIdentifier == a.identifier ? "A" : "B")\(transaction.transactionIdentifier)")
            token = transaction.token
        }
        #expect(seen == ["B1", "A1", "A2"])
        #expect(a.askedLimits.withLock { $0 }.allSatisfy { $0 == 1 })
        #expect(b.askedLimits.withLock { $0 }.allSatisfy { $0 == 1 })
    }

    @Test func aSortedLimitedFetchAsksEachStoreForEverything() throws {
        let (container, a, _) = try makeContainer()
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.sortBy = [SortDescriptor(\.timestamp, order: .reverse)]
        descriptor.fetchLimit = 2
        let newest = try container.fetchHistory(descriptor)
        #expect(newest.map(\.timestamp.timeIntervalSince1970) == [10, 7])
        #expect(a.askedLimits.withLock { $0 } == [nil])
    }
}
