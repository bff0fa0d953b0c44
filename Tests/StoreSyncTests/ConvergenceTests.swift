import Foundation
import StoreSync
import StoreTestSupport
import Testing

/// Replicas converge, to what the merge rules say (issue 32's convergence test): seeded random
/// rounds of offline edits on two or three replicas, synced in random orders, then quiesced.
/// Replay a failing run with `DATASTORES_SYNC_SEED=<the printed seed>`.
@Suite struct ConvergenceTests {
    /// The first seed: the one given to replay a run (`DATASTORES_SYNC_SEED=<seed>`), a new one
    /// each run with `DATASTORES_SYNC_SEED=random` (printed), else a fixed one, so that CI runs the
    /// same runs each time.
    static func firstSeed(fixed: UInt64 = 1_000) -> UInt64 {
        let text = ProcessInfo.processInfo.environment["DATASTORES_SYNC_SEED"]
        if let text, let seed = UInt64(text) { return seed }
        guard text == "random" else { return fixed }
        var random = SystemRandomNumberGenerator()
        return random.next() % 1_000_000_000
    }

    /// Inserts, overlapping updates, deletes, to-one and to-many changes; labels named apart.
    @Test
    func replicasConvergeToTheModelOfTheMergeRules() async throws {
        let totals = try await runs(uniqueCollisions: false)
        for kind in SyncEdit.Kind.allCases where kind != .nullified || FullTestRun.isEnabled {
            #expect(totals.edits[kind, default: 0] > 0, "no \(kind.rawValue) edit")
        }
        #expect(totals.modelConflicts.overlappingFields > 0)
        if FullTestRun.isEnabled { #expect(totals.modelConflicts.deleteVersusUpdate > 0 && totals.resolutions > 0) }
    }

    /// The same with labels of the same names inserted on several replicas: unique-key merges
    /// (from a fixed first seed whose quick runs hold one; the full size holds a score or more).
    @Test
    func replicasConvergeWithUniqueKeyCollisions() async throws {
        let totals = try await runs(uniqueCollisions: true, fixedSeed: 732_826_737)
        #expect(totals.modelConflicts.uniqueCollisions > 0)
    }

    /// The first run that found the to-many defect: two replicas, six rounds. A replica moves a
    /// task into a project it just inserted; the other, not having seen that, appends the task to
    /// another project's tasks and syncs first; the first replica's later move wins, yet after
    /// quiescing it still lists the task in the other project's tasks (the remote does not).
    /// Since the editor leaves a save's moved models alone (see the next test) the seed makes
    /// other edits; `MergeRuleScenarioTests` hold the defect's scenario.
    @Test
    func theRunOfSeed583361392Converges() async throws {
        let (_, failures) = try await ConvergenceRun(seed: 583_361_392, rounds: 6, replicaCount: 2, uniqueCollisions: false).run()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// The run that found the convergence editor recording what a save did not do: every replica
    /// equalled the remote, and the model said a task names no project where the remote's names
    /// one. One replica, in one save, appended the task to a project's tasks, then deleted the
    /// project the task had been in; the editor read that project's tasks before the context
    /// brought them in step (at the save) and recorded the task as nullified by the deletion, but
    /// the save kept it in its new project, which the replicator then synced. The replicator was
    /// right (`SyncEditorRecordTests`). The editor now leaves alone, for the rest of a save, the
    /// models whose relationship the save changed, so this seed no longer makes those edits.
    @Test
    func theRunOfSeed989318679Converges() async throws {
        let (_, failures) = try await ConvergenceRun(seed: 989_318_679, rounds: 24, replicaCount: 3, uniqueCollisions: false).run()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Runs of two and three replicas from consecutive seeds; prints each run's figures and the totals.
    func runs(uniqueCollisions: Bool, fixedSeed: UInt64 = 1_000) async throws -> ConvergenceRun.Figures {
        let runs = FullTestRun.isEnabled ? 16 : 3
        let rounds = FullTestRun.isEnabled ? 24 : 6
        let first = Self.firstSeed(fixed: fixedSeed)
        var totals = ConvergenceRun.Figures()
        let start = ContinuousClock.now
        for index in 0..<runs {
            let seed = first + UInt64(index)
            var run = ConvergenceRun(seed: seed, rounds: rounds, replicaCount: 2 + index % 2)
            run.uniqueCollisions = uniqueCollisions
            let (figures, failures) = try await run.run()
            print("convergence seed \(seed), \(run.replicaCount) replicas: \(figures.summary)")
            #expect(failures.isEmpty, "seed \(seed): \(failures.joined(separator: "\n"))")
            totals.add(figures)
        }
        print("convergence, \(runs) runs from seed \(first) in \(ContinuousClock.now - start): \(totals.summary)")
        return totals
    }
}

extension ConvergenceRun.Figures {
    mutating func add(_ other: Self) {
        rounds += other.rounds
        for (kind, count) in other.edits { edits[kind, default: 0] += count }
        syncs += other.syncs
        quiescingRounds += other.quiescingRounds
        pushed += other.pushed
        pulled += other.pulled
        resolutions += other.resolutions
        modelConflicts.overlappingFields += other.modelConflicts.overlappingFields
        modelConflicts.deleteVersusUpdate += other.modelConflicts.deleteVersusUpdate
        modelConflicts.uniqueCollisions += other.modelConflicts.uniqueCollisions
    }

    var summary: String {
        let kinds = SyncEdit.Kind.allCases.map { "\($0.rawValue) \(edits[$0, default: 0])" }.joined(separator: ", ")
        return "\(rounds) rounds (+\(quiescingRounds) quiescing), \(syncs) syncs, pushed \(pushed), pulled \(pulled); edits: \(kinds); "
            + "conflicts: \(modelConflicts.overlappingFields) fields changed on several replicas, "
            + "\(modelConflicts.deleteVersusUpdate) delete/update, \(modelConflicts.uniqueCollisions) unique collisions; "
            + "resolutions reported \(resolutions)"
    }
}
