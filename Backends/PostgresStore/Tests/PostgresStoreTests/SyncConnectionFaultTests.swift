import DataStores
import Foundation
import PostgresNIO
import PostgresStore
import StoreSync
import Testing

/// The replicator's server connections are terminated (`pg_terminate_backend`, from the test's
/// own connection) at random points of many rounds: as a round enters a phase, or a few
/// milliseconds into it (inside a read or a save). Rounds that fail are retried. In the end
/// every replica holds the same rows, every local transaction reached the server exactly once
/// (counted per replicator author "StoreSync/<origin>/<n>"), and none was applied twice anywhere.
@Suite("Sync under terminated connections", .enabled(if: TestServer.isConfigured))
struct SyncConnectionFaultTests {
    /// What the fault thread does, shared with the phase handler.
    final class Faults: @unchecked Sendable {
        // @unchecked: every field is only touched while `lock` is held.
        private let lock = NSLock()
        private var random: Xorshift
        /// The phase whose entry triggers the next fault, and how many microseconds into it.
        private var armed: (phase: SyncPhase, delay: Int)?
        private(set) var injected: [SyncPhase: Int] = [:]
        let admin: AdminConnection
        let database: String

        init(seed: UInt64, admin: AdminConnection, database: String) {
            random = Xorshift(seed: seed)
            self.admin = admin
            self.database = database
        }

        /// Arms one fault for the next round: a phase (each as likely), at its entry or up to 5 ms into it.
        func arm() {
            lock.withLock {
                let phase = SyncPhase.allCases.randomElement(using: &random)!
                armed = (phase, Bool.random(using: &random) ? 0 : Int.random(in: 1...5_000, using: &random))
            }
        }

        /// Called as a round enters `phase`: terminates the connections now or a little later when armed for it.
        func entering(_ phase: SyncPhase) {
            let delay: Int? = lock.withLock {
                guard let fault = armed, fault.phase == phase else { return nil }
                armed = nil
                injected[phase, default: 0] += 1
                return fault.delay
            }
            guard let delay else { return }
            if delay == 0 { terminateAll() } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay)) { self.terminateAll() }
            }
        }

        /// Terminates every connection to the test's database (the stores' own, the locks', the listeners').
        func terminateAll() {
            lock.withLock {
                var binds = PostgresBindings()
                binds.append(database)
                _ = try? admin.integers("SELECT count(pg_terminate_backend(pid, 10000))::bigint FROM pg_stat_activity WHERE datname = $1", binds)
            }
        }

        var total: Int { lock.withLock { injected.values.reduce(0, +) } }
    }

    @Test("Connections terminated at random points of 100 rounds: nothing lost, nothing applied twice", .timeLimit(.minutes(10)))
    func terminatedConnections() async throws {
        // A database of its own, so that terminating its connections touches no other test.
        let base = try TestServer.configuration()
        let admin = try AdminConnection(base)
        let database = "fault_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try admin.execute("CREATE DATABASE \(database)")
        let fixture = try SyncFixture(database: database)
        let faults = Faults(seed: 32, admin: admin, database: database)
        let configuration = SyncConfiguration(phaseHandler: { faults.entering($0) })
        let replicas = try ["a", "b"].map { try fixture.local($0) }
        let remote = try fixture.remote()
        let replicators = try replicas.map { try Replicator(local: $0, remote: try fixture.remote(), configuration: configuration) }
        var random = Xorshift(seed: 7)
        var failedRounds = 0

        for round in 0..<100 {
            let index = round % 2
            let replica = replicas[index]
            try SyncFixture.edit(replica) { context in
                let entries = try context.fetch(FetchDescriptor<HelperEntry>())
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where !entries.isEmpty: context.delete(entries.randomElement(using: &random)!)
                case 1 where !entries.isEmpty: entries.randomElement(using: &random)!.sequence += 1
                default: context.insert(HelperEntry(writer: index, sequence: round))
                }
            }
            faults.arm()
            failedRounds += try await Self.syncRetrying(replicators[index])
        }
        // Rounds without faults (a late one may still land: retried) until both replicas hold what the server holds.
        for replicator in replicators + replicators { failedRounds += try await Self.syncRetrying(replicator) }

        let remoteRows = try SyncFixture.rows(remote)
        #expect(try SyncFixture.rows(replicas[0]) == remoteRows)
        #expect(try SyncFixture.rows(replicas[1]) == remoteRows)
        let remoteRanges = try SyncFixture.replicatedRanges(remote)
        // Each replica's own saves are on the server once each, under one origin.
        for replica in replicas {
            let own = try SyncFixture.appTransactions(replica)
            #expect(remoteRanges.values.contains { SyncFixture.appliesExactly($0, own) },
                    "a replica's saves \(own.sorted()) are not on the server exactly once: \(remoteRanges)")
            let pulled = try SyncFixture.replicatedRanges(replica)
            #expect(pulled.values.allSatisfy(SyncFixture.disjoint), "applied twice locally: \(pulled)")
        }
        print("connection faults: \(faults.total) injected (\(faults.injected.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", "))), "
              + "\(failedRounds) rounds failed and were retried, \(remoteRows.count) rows, \(remoteRanges.values.map(\.count).reduce(0, +)) replicated transactions on the server")
        #expect(faults.total > 0)
    }

    /// Syncs until a round succeeds (at most 20 tries); returns how many failed.
    static func syncRetrying(_ replicator: Replicator) async throws -> Int {
        for failed in 0..<20 {
            do {
                try await replicator.sync()
                return failed
            } catch {
                if failed == 19 { throw error }
            }
        }
        return 20
    }
}

/// A seeded random number generator (xorshift64*), so that a failing run can be repeated.
struct Xorshift: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}
