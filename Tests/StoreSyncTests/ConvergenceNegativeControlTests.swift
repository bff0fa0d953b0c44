import StoreSync
import StoreTestSupport
import Testing

/// The convergence harness's negative control: replicators that resolve every conflict by
/// keeping what each replica holds (each replica keeps its own side of a concurrent change) must
/// fail the harness, by diverging or by leaving what the merge rules say.
@Suite struct ConvergenceNegativeControlTests {
    /// Keeps the held value or deletion, whatever the clocks say.
    struct KeepsHeld: ConflictResolver {
        func resolve(_ conflict: SyncConflict) -> SyncConflict.Resolution { .keepHeld }
    }

    @Test func theHarnessCatchesReplicatorsThatKeepTheirOwnSide() async throws {
        let first = ConvergenceTests.firstSeed()
        var caught: [String] = []
        // A few runs: one without a conflict the resolver is asked about would pass.
        for index in 0..<4 where caught.isEmpty {
            var run = ConvergenceRun(seed: first + UInt64(index), rounds: 8, replicaCount: 3, uniqueCollisions: false)
            run.resolver = KeepsHeld()
            caught = try await run.run().failures
        }
        #expect(!caught.isEmpty, "the harness passed replicators that keep each replica's own side (seeds from \(first))")
    }
}
