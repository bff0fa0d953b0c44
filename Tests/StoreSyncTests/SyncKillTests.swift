import Foundation
import StoreSync
import StoreTestSupport
import Testing

/// SIGKILL at random points of every phase of a round (issue 32's faults): nothing lost, nothing
/// applied twice. Replay a run with `DATASTORES_SYNC_SEED=<the printed seed>`.
@Suite struct SyncKillTests {
    @Test func killedRoundsNeitherLoseNorRepeatAChange() async throws {
        let rounds = FullTestRun.isEnabled ? 250 : 10
        let seed = ConvergenceTests.firstSeed()
        let start = ContinuousClock.now
        let (figures, failures) = try await SyncKillHarness(seed: seed, rounds: rounds).run()
        let elapsed = ContinuousClock.now - start
        let phases = SyncPhase.allCases.map { "\($0.rawValue) \(figures.killsByPhase[$0, default: 0])" }.joined(separator: ", ")
        print("sync kills, seed \(seed): \(figures.rounds) rounds in \(elapsed), \(figures.kills) kills (\(phases)); "
              + "\(figures.finishedBeforeTheKill) rounds finished before the kill, \(figures.phaseNotReached) never reached the phase; "
              + "\(figures.acknowledgedSaves) acknowledged saves, \(figures.remoteTransactions) transactions pushed, "
              + "\(figures.pulledTransactions) pulled; applied twice \(figures.appliedTwice), lost \(figures.lost)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(figures.appliedTwice == 0 && figures.lost == 0)
        #expect(figures.remoteTransactions > 0 && figures.pulledTransactions > 0)
        // Each phase was killed inside: at least a tenth of its share of the rounds in the full run.
        let least = FullTestRun.isEnabled ? rounds / SyncPhase.allCases.count / 10 : 0
        for phase in SyncPhase.allCases {
            #expect(figures.killsByPhase[phase, default: 0] >= least, "kills in \(phase.rawValue)")
        }
        #expect(figures.kills >= rounds / 2, "most rounds were killed")
    }

    /// The harness's negative control: a remote that saves the replicator's sync state in a save
    /// of its own after the data, with a crash between (the crashed transaction is applied
    /// again by the next round): the harness reports a transaction applied twice.
    @Test func theHarnessCatchesAReplicatorThatAppliesTwice() async throws {
        let sabotage = SyncSabotage.splitsSyncStateAndCrashes
        var harness = SyncKillHarness(seed: ConvergenceTests.firstSeed(), rounds: 3, sabotage: sabotage)
        harness.kills = false
        let (figures, failures) = try await harness.run()
        #expect(!failures.isEmpty, "the harness missed \(sabotage.rawValue)")
        #expect(figures.appliedTwice > 0, "\(failures.joined(separator: "\n"))")
    }
}
