import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreSync
import StoreTestSupport

/// One seeded convergence run: replicas (JSON and memory stores) around one remote make random
/// offline edits in rounds and sync in random orders; after a quiescing round (every replica
/// syncs until a round moves nothing) each replica and the remote must hold the same rows, equal
/// to what ``MergeRulesModel`` computes from the edits.
struct ConvergenceRun {
    /// What the run did, for its printed line.
    struct Figures {
        var rounds = 0
        var edits: [SyncEdit.Kind: Int] = [:]
        var syncs = 0
        var quiescingRounds = 0
        var pushed = 0, pulled = 0
        /// Resolutions the replicators reported (`SyncReport.resolutions`).
        var resolutions = 0
        var modelConflicts = (overlappingFields: 0, deleteVersusUpdate: 0, uniqueCollisions: 0)
    }

    let seed: UInt64
    let rounds: Int
    let replicaCount: Int
    /// The resolver every replicator uses (a broken one in the negative control).
    var resolver: any ConflictResolver = LastWriterWins()
    /// Whether replicas insert labels of the same names (unique-key collisions); without, each
    /// replica names its labels apart.
    var uniqueCollisions = true

    /// Runs the rounds; returns the figures and what went wrong (empty when the replicas
    /// converged to the model).
    func run() async throws -> (figures: Figures, failures: [String]) {
        var generator = SeededGenerator(seed: seed)
        var figures = Figures()
        var model = MergeRulesModel()
        let directory = try temporaryDirectory()
        let schema = Schema(syncTestModelTypes + Replicator.models)
        let remoteIsJSON = seed % 2 == 0
        let remoteName = "sync-remote-\(UUID().uuidString)"
        // Each replica opens the remote on its own, as separate processes would (a memory
        // remote is one shared store, opened by each).
        func openRemote() throws -> ModelContainer {
            remoteIsJSON
                ? try ModelContainer(for: schema, configurations: JSONStoreConfiguration(url: directory.appending(path: "remote.json")))
                : try ModelContainer(for: schema, configurations: MemoryStoreConfiguration(name: remoteName, isShared: true))
        }
        var locals: [ModelContainer] = []
        var replicators: [Replicator] = []
        let resolutions = Counter()
        for replica in 0..<replicaCount {
            // JSON and memory locals alternate; which comes first depends on the seed.
            let local = (replica + Int(seed % 3)) % 2 == 0
                ? try ModelContainer(for: schema, configurations: JSONStoreConfiguration(url: directory.appending(path: "replica-\(replica).json")))
                : try ModelContainer(for: schema, configurations: MemoryStoreConfiguration(name: "replica-\(replica)"))
            locals.append(local)
            replicators.append(try Replicator(local: local, remote: try openRemote(), configuration: SyncConfiguration(
                resolver: resolver, resolutionHandler: { _ in resolutions.add(1) })))
        }
        let editors = (0..<replicaCount).map { SyncEditor(owner: "r\($0)", labelNamePrefix: uniqueCollisions ? "" : "r\($0)-") }
        var lastClockRead = wallMilliseconds()

        func sync(_ replica: Int) async throws -> SyncReport {
            waitForALaterMillisecond(than: lastClockRead)
            model.roundBegins(on: replica)
            let report = try await replicators[replica].sync()
            lastClockRead = wallMilliseconds()
            figures.syncs += 1
            figures.pushed += report.pushedTransactions
            figures.pulled += report.pulledTransactions
            figures.resolutions += report.resolutions
            return report
        }

        for _ in 0..<rounds {
            figures.rounds += 1
            for replica in 0..<replicaCount where Int.random(in: 0..<10, using: &generator) < 8 {
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let context = ModelContext(locals[replica])
                    context.author = "app-\(replica)"
                    var deleted = Set<UUID>(), edits: [SyncEdit] = []
                    for _ in 0..<Int.random(in: 1...3, using: &generator) {
                        edits += try editors[replica].edit(context, deleted: &deleted, using: &generator)
                    }
                    try context.save()
                    model.record(edits, on: replica)
                    for edit in edits { figures.edits[edit.kind, default: 0] += 1 }
                }
            }
            let syncing = (0..<replicaCount).shuffled(using: &generator).prefix(Int.random(in: 1...replicaCount, using: &generator))
            for replica in syncing { _ = try await sync(replica) }
        }

        var failures: [String] = []
        var quiet = false
        while !quiet && figures.quiescingRounds < 3 * replicaCount + 2 {
            figures.quiescingRounds += 1
            quiet = true
            for replica in 0..<replicaCount {
                let report = try await sync(replica)
                if report.pushedTransactions + report.pulledTransactions > 0 { quiet = false }
            }
        }
        if !quiet { failures.append("the replicas did not quiesce in \(figures.quiescingRounds) rounds") }
        if model.undatedEdits > 0 { failures.append("\(model.undatedEdits) edits were never dated (a replica never synced)") }

        let expected = model.expectedRows
        let remoteRows = try SyncRows(try openRemote())
        if remoteRows != expected {
            failures.append("the remote differs from the model:\n\(remoteRows.difference(from: expected))")
            // The known disagreement is on projects and tasks' projects (ConvergenceTests):
            // anything else (tasks' other values, labels) is not.
            if remoteRows.withoutProjects != expected.withoutProjects {
                failures.append("the model and the remote disagree beyond projects:\n"
                    + remoteRows.withoutProjects.difference(from: expected.withoutProjects))
            }
        }
        for (replica, local) in locals.enumerated() {
            let rows = try SyncRows(local)
            if rows != remoteRows {
                failures.append("replica \(replica) differs from the remote:\n\(rows.difference(from: remoteRows))")
            }
        }
        figures.modelConflicts = model.conflicts
        if figures.resolutions != resolutions.value {
            failures.append("reports counted \(figures.resolutions) resolutions, the handler saw \(resolutions.value)")
        }
        return (figures, failures)
    }
}

/// A count several closures add to.
final class Counter: Sendable {
    private let count = Locked(0)
    func add(_ amount: Int) { count.withLock { $0 += amount } }
    var value: Int { count.withLock { $0 } }
}

extension SyncRows {
    /// These rows without projects, and without each task's project.
    var withoutProjects: SyncRows {
        var rows = self
        for id in rows.tasks.keys { rows.tasks[id]?.project = nil }
        rows.projects = [:]
        return rows
    }
}
