import DataStores
import Foundation
@testable import StoreSync
import Testing

/// Batched replication: a round applies up to `batchSize` source transactions in one destination
/// save, authored by the range of origin transactions it applies ("StoreSync/<origin>/<first>-<last>"),
/// exactly once across batches and rounds; the one-number authors of stores written before
/// batching (and of a batch of one) still read.
@Suite struct SyncBatchedSaveTests {
    private static func transaction(author: String?, number: Int64 = 40) -> DefaultHistoryTransaction {
        DefaultHistoryTransaction(
            transactionIdentifier: number, token: DefaultHistoryToken(storeIdentifier: "server", transactionNumber: number),
            author: author, timestamp: Date(), storeIdentifier: "server", bundleIdentifier: "", processIdentifier: "", changes: [])
    }

    /// Sabotage checked: reading a range's last number as its first (Y70) and taking a reversed
    /// range (Y71) fail here.
    @Test func authorsNameOneTransactionOrARange() {
        typealias Range = SyncRound.OriginRange
        func origin(_ author: String?) -> Range? { SyncRound.origin(of: Self.transaction(author: author)) }
        #expect(origin("StoreSync/r1/7") == Range(origin: "r1", first: 7, last: 7))
        #expect(origin("StoreSync/r1/3-7") == Range(origin: "r1", first: 3, last: 7))
        #expect(origin("StoreSync/r1/3-7/merged") == Range(origin: "r1", first: 3, last: 7, merged: true))
        #expect(origin("StoreSync/r1/7/merged") == Range(origin: "r1", first: 7, last: 7, merged: true))
        // An app's save names itself.
        #expect(origin("app") == Range(origin: "server", first: 40, last: 40))
        #expect(origin(nil) == Range(origin: "server", first: 40, last: 40))
        #expect(origin("StoreSync") == Range(origin: "server", first: 40, last: 40), "only StoreSync/… is the replicator's")
        // Bookkeeping and what this version cannot read apply nothing.
        for author in ["StoreSync/stamp", "StoreSync/position", "StoreSync/r1/7-3", "StoreSync/r1/3-", "StoreSync/r1/-3",
                       "StoreSync/r1/3-5-7", "StoreSync/r1/x", "StoreSync/r1/3-7/other"] {
            #expect(origin(author) == nil, "\(author)")
        }
        // What a save writes reads back.
        for range in [Range(origin: "r1", first: 5, last: 5), Range(origin: "r1", first: 5, last: 9, merged: true)] {
            #expect(origin(range.author) == range)
        }
        #expect(Range(origin: "r1", first: 5, last: 5).author == "StoreSync/r1/5")
        #expect(Range(origin: "r1", first: 5, last: 9).author == "StoreSync/r1/5-9")
    }

    /// The replicated transactions of a container's history, as ranges.
    private static func replicated(_ container: ModelContainer) throws -> [SyncRound.OriginRange] {
        try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            .filter(SyncRound.isReplicatorAuthored).compactMap(SyncRound.origin(of:))
    }

    /// Replica "a" (batches of `batchSize`) and "b" of a new world, and a note that a inserted and
    /// changed `changes` times (one local transaction each) and pushed: what the push reported.
    private static func counterPushed(_ backend: SyncBackend, batchSize: Int, changes: Int) async throws
        -> (SyncWorld, Replica, Replica, PersistentIdentifier, SyncReport) {
        let world = try SyncWorld(backend)
        let a = try world.replica("a", configuration: SyncConfiguration(batchSize: batchSize))
        let b = try world.replica("b")
        let id = try a.insert { SyncNote(title: "counter") }
        for rank in 1...changes { try a.change(id) { $0.rank = rank } }
        return (world, a, b, id, try await a.sync())
    }

    /// Sabotage checked: saving the first transaction of a batch as the applied one (Y72) pushes
    /// the batch's rest again; a pull that saves each remote transaction alone (Y73), or read-ahead
    /// rows taken for absent models (Y74), fail here.
    @Test(arguments: SyncBackend.allCases)
    func transactionsTravelInBatchesExactlyOnce(_ backend: SyncBackend) async throws {
        let (world, a, b, id, pushed) = try await Self.counterPushed(backend, batchSize: 4, changes: 9)
        #expect(pushed.pushedTransactions == 10)
        // Batches of 4 local transactions: one server save each, named by its range.
        let origin = try #require(try SyncStateRows.replicaState(in: a.replicator.localStore)?.replicaID)
        #expect(try Self.replicated(world.server).map { [$0.first, $0.last] } == [[1, 4], [5, 8], [9, 10]])
        #expect(try Self.replicated(world.server).allSatisfy { $0.origin == origin })
        #expect(try SyncStateRows.appliedOrigin(origin, in: a.replicator.remoteStore) == 10)

        // b pulls the three server transactions of one origin in one local save.
        let pulled = try await b.sync()
        #expect(pulled.pulledTransactions == 3)
        #expect(try Self.replicated(b.container) == [SyncRound.OriginRange(origin: origin, first: 1, last: 10)])
        #expect(try b.note(id)?.rank == 9)

        // Nothing again, either way.
        let again = try await a.sync(), bAgain = try await b.sync()
        #expect(again.pushedTransactions == 0 && again.pulledTransactions == 0)
        #expect(bAgain.pushedTransactions == 0 && bAgain.pulledTransactions == 0)

        // An update of an existing model in a batch, back the other way.
        try b.change(id) { $0.body = "from b" }
        try b.change(id) { $0.rank = 20 }
        try await b.sync()
        try await a.sync()
        #expect(try a.note(id)?.body == "from b")
        #expect(try a.note(id)?.rank == 20)
    }

    /// Stores written before batching hold one server transaction per local one, named by one
    /// number (as a batch of one still is): a replica pulls them, in one save, exactly once.
    @Test(arguments: SyncBackend.allCases)
    func oneNumberAuthorsStillPullOnce(_ backend: SyncBackend) async throws {
        let (world, _, b, id, _) = try await Self.counterPushed(backend, batchSize: 1, changes: 2)
        let onServer = try Self.replicated(world.server)
        #expect(onServer.map { [$0.first, $0.last] } == [[1, 1], [2, 2], [3, 3]])
        #expect(try world.server.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            .filter(SyncRound.isReplicatorAuthored).compactMap(\.author).allSatisfy { !$0.split(separator: "/")[2].contains("-") })

        let pulled = try await b.sync()
        #expect(pulled.pulledTransactions == 3)
        #expect(try Self.replicated(b.container).map { [$0.first, $0.last] } == [[1, 3]])
        #expect(try b.note(id)?.rank == 2)
        #expect(try await b.sync().pulledTransactions == 0)
    }
}
