import DataStores
import Foundation
import PostgresStore
import StoreSync
import Testing

/// Local JSON stores replicating through a PostgresStore remote (issue 32): convergence,
/// deletes, conflicts, and a pull position that the server's history no longer reaches.
@Suite("Sync through PostgreSQL", .enabled(if: TestServer.isConfigured))
struct SyncWithPostgresTests {
    /// Collects the resolutions a replicator reports.
    final class Resolutions: @unchecked Sendable {
        // @unchecked: `list` is only touched while `lock` is held.
        private let lock = NSLock()
        private var list: [SyncResolution] = []
        func append(_ resolution: SyncResolution) { lock.withLock { list.append(resolution) } }
        var all: [SyncResolution] { lock.withLock { list } }
    }

    @Test("Two replicas converge through the server: inserts, updates, deletes, conflicts", .timeLimit(.minutes(3)))
    func twoReplicasConverge() async throws {
        let fixture = try SyncFixture()
        let remote = try fixture.remote()
        let a = try fixture.local("a"), b = try fixture.local("b")
        let resolutions = Resolutions()
        let configuration = SyncConfiguration(resolutionHandler: { resolutions.append($0) })
        let syncA = try Replicator(local: a, remote: remote, configuration: configuration)
        let syncB = try Replicator(local: b, remote: try fixture.remote(), configuration: configuration)

        try SyncFixture.edit(a) { context in for sequence in 0..<3 { context.insert(HelperEntry(writer: 1, sequence: sequence)) } }
        try SyncFixture.edit(b) { context in for sequence in 0..<2 { context.insert(HelperEntry(writer: 2, sequence: sequence)) } }
        let first = try await syncA.sync()
        #expect(first.pushedTransactions == 1)
        let second = try await syncB.sync()
        #expect(second.pulledTransactions == 1)
        #expect(second.pushedTransactions == 1)
        try await syncA.sync()
        #expect(try SyncFixture.rows(a).count == 5)
        #expect(try SyncFixture.rows(a) == SyncFixture.rows(b))
        #expect(try SyncFixture.rows(remote) == SyncFixture.rows(a))

        // Offline on both: A updates w1-0 and deletes w2-1; B updates w1-0's other attribute
        // (no conflict), both set w1-1's sequence (a conflict: the later clock wins), A deletes
        // w1-2 while B updates it (delete wins by default).
        try SyncFixture.edit(a) { context in
            try #require(try SyncFixture.entry("w1-0", in: context)).sequence = 100
            context.delete(try #require(try SyncFixture.entry("w2-1", in: context)))
            try #require(try SyncFixture.entry("w1-1", in: context)).sequence = 11
            context.delete(try #require(try SyncFixture.entry("w1-2", in: context)))
        }
        try SyncFixture.edit(b) { context in
            try #require(try SyncFixture.entry("w1-0", in: context)).writer = 7
            try #require(try SyncFixture.entry("w1-1", in: context)).sequence = 22   // later than A's 11
            try #require(try SyncFixture.entry("w1-2", in: context)).writer = 9
        }
        try await syncA.sync()
        try await syncB.sync()
        try await syncA.sync()
        let expected: [String: [Int]] = ["w1-0": [7, 100], "w1-1": [1, 22], "w2-0": [2, 0]]
        #expect(try SyncFixture.rows(a) == expected)
        #expect(try SyncFixture.rows(b) == expected)
        #expect(try SyncFixture.rows(remote) == expected)
        #expect(resolutions.all.contains { $0.conflict.kind == .deleteVersusUpdate && $0.conflict.identifier.entityName == "HelperEntry" })
        // Nothing applied twice: each replicated transaction once in the server's history.
        #expect(try SyncFixture.replicatedRanges(remote).values.allSatisfy(SyncFixture.disjoint))
    }

    @Test("A pull position the server's history no longer reaches: a full resync, nothing lost", .timeLimit(.minutes(3)))
    func expiredPullPosition() async throws {
        let fixture = try SyncFixture()
        let remote = try fixture.remote()
        let a = try fixture.local("a"), b = try fixture.local("b")
        let syncA = try Replicator(local: a, remote: remote)
        let syncB = try Replicator(local: b, remote: try fixture.remote())
        try SyncFixture.edit(a) { $0.insert(HelperEntry(writer: 1, sequence: 0)) }
        try await syncA.sync()
        try await syncB.sync()
        #expect(try SyncFixture.rows(b).count == 1)

        // A moves on; B is offline with an insert of its own; the server's history is deleted
        // past B's pull position.
        try SyncFixture.edit(a) { context in
            context.insert(HelperEntry(writer: 1, sequence: 1))
            try #require(try SyncFixture.entry("w1-0", in: context)).sequence = 50
        }
        try await syncA.sync()
        try SyncFixture.edit(b) { $0.insert(HelperEntry(writer: 2, sequence: 0)) }
        try remote.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())

        let report = try await syncB.sync()
        #expect(report.resynced)
        try await syncA.sync()
        let expected: [String: [Int]] = ["w1-0": [1, 50], "w1-1": [1, 1], "w2-0": [2, 0]]
        #expect(try SyncFixture.rows(b) == expected)
        #expect(try SyncFixture.rows(a) == expected)
        #expect(try SyncFixture.rows(remote) == expected)
    }
}
