import DataStores
import Foundation
import JSONStore
import StoreSync
import StoreTestSupport

/// The SIGKILL fault harness (issue 32's faults): a `StoreTestHelper sync-child` process edits
/// replica A's JSON store and syncs it with a JSON remote, announcing each phase; the harness
/// kills it at a random point after a chosen phase's marker (round-robin over the phases), then
/// finishes the sync in this process and checks that nothing was lost and nothing applied twice.
///
/// Replica B (in this process) edits and syncs before each round, so that the child has remote
/// changes to pull. A and B edit only the models they made: no conflicts, so every acknowledged
/// edit must survive as made. What is checked after each round:
/// - A's rows as the child acknowledged its last save (the owner's rows' digest);
/// - A, B and the remote hold the same rows;
/// - exactly once: the replicator's transactions, authored "StoreSync/<origin>/<first>-<last>"
///   (or "StoreSync/<origin>/<n>" for one), cover each (origin, n) once on the remote and once
///   on the replica that pulled it; the n's of each origin they cover are exactly that replica's
///   app transactions (none missing; every range starts and ends at one).
struct SyncKillHarness {
    struct Figures {
        var rounds = 0
        /// Kills by the phase the child had last announced: where each kill landed.
        var killsByPhase: [SyncPhase: Int] = [:]
        /// Rounds whose child finished the round before the kill.
        var finishedBeforeTheKill = 0
        /// Rounds whose child ended without entering the chosen phase.
        var phaseNotReached = 0
        var acknowledgedSaves = 0
        /// App transactions applied by replicator transactions on the remote (pushes) and on the
        /// replicas (pulls), at the end.
        var remoteTransactions = 0, pulledTransactions = 0
        /// (origin, n) pairs applied more than once, and app transactions missing on the other side.
        var appliedTwice = 0, lost = 0

        var kills: Int { killsByPhase.values.reduce(0, +) }
    }

    let seed: UInt64
    let rounds: Int
    /// The flaw the child's remote is opened behind (the negative controls), or none.
    var sabotage: SyncSabotage?
    /// Rounds that share one set of stores before a new set starts (history stays short).
    var roundsPerStoreSet = 25
    /// Whether the harness kills the child (the negative controls let a sabotaged child run, or
    /// crash where its sabotage does).
    var kills = true
    /// The longest random pause between reading a phase's marker and the kill.
    var maximumPauseNanoseconds: UInt64 = 2_000_000

    func run() async throws -> (figures: Figures, failures: [String]) {
        var generator = SeededGenerator(seed: seed)
        var figures = Figures()
        var failures: [String] = []
        var set: StoreSet?
        for round in 0..<rounds {
            if round % roundsPerStoreSet == 0 {
                if let set { try set.count(into: &figures) }
                set = try StoreSet()
            }
            guard let stores = set else { continue }
            figures.rounds += 1
            // B's edits, synced: something for the child to pull.
            try stores.editB(using: &generator)
            try await stores.syncB()

            let phase = SyncPhase.allCases[round % SyncPhase.allCases.count]
            let saves = Int.random(in: 1...3, using: &generator)
            let child = try ChildProcess(["sync-child", stores.localA.path, stores.remote.path, "\(generator.next())", "\(saves)"]
                                         + (sabotage.map { [$0.rawValue] } ?? []))
            var reached = false
            while child.waitForLines(child.lines.count + 1) {
                if child.lines.last == "phase \(phase.rawValue)" {
                    reached = true
                    break
                }
            }
            if reached && kills {
                randomPause(maximumNanoseconds: maximumPauseNanoseconds, using: &generator)
                child.kill()
            }
            let status = child.finish()
            let acknowledgements = child.lines.filter { $0.hasPrefix("ack ") }
            figures.acknowledgedSaves += acknowledgements.count
            if child.process.terminationReason == .uncaughtSignal {
                let last = child.lines.last { $0.hasPrefix("phase ") }.flatMap { SyncPhase(rawValue: String($0.dropFirst("phase ".count))) }
                if let last { figures.killsByPhase[last, default: 0] += 1 }
            } else if status != 0 {
                failures.append("round \(round): the child failed (status \(status)): \(child.errorText)")
            } else if reached {
                figures.finishedBeforeTheKill += 1
            } else {
                figures.phaseNotReached += 1
            }

            // Finish the round here, then check.
            try await stores.quiesce()
            if let digest = acknowledgements.last?.split(separator: " ").last.map(String.init) {
                let held = try SyncRows(stores.openA()).owned(by: "A")
                if held.digest != digest {
                    failures.append("round \(round): replica A holds rows other than its last acknowledged save's")
                }
            }
            if let problem = try stores.check() { failures.append("round \(round) (\(phase.rawValue), seed \(seed)): \(problem)") }
            if failures.count > 5 { break }
        }
        if let set { try set.count(into: &figures) }
        return (figures, failures)
    }
}

/// One set of stores of the kill harness: A's and B's JSON stores and the remote's, in a new
/// directory; B's and A's in-process replicators (A's finishes what the killed child began).
private final class StoreSet {
    let localA: URL, localB: URL, remote: URL
    let containerB: ModelContainer
    let replicatorA: Replicator, replicatorB: Replicator

    init() throws {
        let directory = try temporaryDirectory()
        localA = directory.appending(path: "a.json")
        localB = directory.appending(path: "b.json")
        remote = directory.appending(path: "remote.json")
        containerB = try Self.open(localB)
        replicatorA = try Replicator(local: try Self.open(localA), remote: try Self.open(remote))
        replicatorB = try Replicator(local: containerB, remote: try Self.open(remote))
    }

    static func open(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Schema(syncTestModelTypes + Replicator.models), configurations: JSONStoreConfiguration(url: url))
    }

    func openA() throws -> ModelContainer { try Self.open(localA) }

    func editB(using generator: inout SeededGenerator) throws {
        let editor = SyncEditor(owner: "B", ownedOnly: true, labels: false)
        for _ in 0..<Int.random(in: 1...2, using: &generator) {
            let context = ModelContext(containerB)
            context.author = "app"
            var touched = Set<UUID>()
            for _ in 0..<Int.random(in: 1...3, using: &generator) { _ = try editor.edit(context, touched: &touched, using: &generator) }
            try context.save()
        }
    }

    func syncB() async throws { try await replicatorB.sync() }

    /// Syncs A and B until a round of both moves nothing.
    func quiesce() async throws {
        for _ in 0..<6 {
            let a = try await replicatorA.sync(), b = try await replicatorB.sync()
            if a.pushedTransactions + a.pulledTransactions + b.pushedTransactions + b.pulledTransactions == 0 { return }
        }
    }

    /// What is wrong with the stores, or nil.
    func check() throws -> String? {
        let a = try openA(), remoteContainer = try Self.open(remote)
        let rowsA = try SyncRows(a), rowsB = try SyncRows(containerB), rowsRemote = try SyncRows(remoteContainer)
        if rowsA != rowsRemote { return "A and the remote differ:\n\(rowsA.difference(from: rowsRemote))" }
        if rowsB != rowsRemote { return "B and the remote differ:\n\(rowsB.difference(from: rowsRemote))" }
        let ledger = try ExactlyOnceLedger(a: a, b: containerB, remote: remoteContainer)
        if !ledger.problems.isEmpty { return ledger.problems.joined(separator: "; ") }
        return nil
    }

    func count(into figures: inout SyncKillHarness.Figures) throws {
        let ledger = try ExactlyOnceLedger(a: try openA(), b: containerB, remote: try Self.open(remote))
        figures.remoteTransactions += ledger.remoteApplied
        figures.pulledTransactions += ledger.pulledApplied
        figures.appliedTwice += ledger.appliedTwice
        figures.lost += ledger.lost
    }
}

/// The replicator's transactions on each side, by origin and origin transaction number, against
/// the app transactions of the replica they came from.
struct ExactlyOnceLedger {
    var problems: [String] = []
    var appliedTwice = 0, lost = 0
    var remoteApplied = 0, pulledApplied = 0

    /// origin → the ranges of its transactions that replicator transactions applied, one per
    /// transaction, from authors "StoreSync/<origin>/<first>-<last>" and "StoreSync/<origin>/<n>".
    static func applied(_ container: ModelContainer) throws -> [String: [ClosedRange<Int64>]] {
        var applied: [String: [ClosedRange<Int64>]] = [:]
        for transaction in try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
            let parts = (transaction.author ?? "").split(separator: "/")
            guard parts.count == 3, parts[0] == "StoreSync" else { continue }
            let numbers = parts[2].split(separator: "-").compactMap { Int64($0) }
            guard let first = numbers.first, let last = numbers.last, first <= last else { continue }
            applied[String(parts[1]), default: []].append(first...last)
        }
        return applied
    }

    static func appTransactions(_ container: ModelContainer) throws -> Set<Int64> {
        Set(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).filter { $0.author == "app" }.map(\.transactionIdentifier))
    }

    init(a: ModelContainer, b: ModelContainer, remote: ModelContainer) throws {
        let onRemote = try Self.applied(remote), onA = try Self.applied(a), onB = try Self.applied(b)
        // A's pulls came from B's origin and B's from A's: that names the two origins.
        let originOfB = onA.keys.sorted(), originOfA = onB.keys.sorted()
        if originOfA.count > 1 || originOfB.count > 1 { problems.append("more than one origin pulled: A \(originOfB), B \(originOfA)") }
        if let unknown = Set(onRemote.keys).subtracting(originOfA + originOfB).first {
            problems.append("the remote holds transactions of origin \(unknown), which neither replica pulled")
        }
        let appA = try Self.appTransactions(a), appB = try Self.appTransactions(b)
        /// (app transaction → how many ranges cover it, the range ends that are not app transactions).
        func covered(_ ranges: [ClosedRange<Int64>], app: Set<Int64>) -> (counts: [Int64: Int], strays: Set<Int64>) {
            var counts: [Int64: Int] = [:], strays = Set<Int64>()
            for range in ranges {
                for number in app where range.contains(number) { counts[number, default: 0] += 1 }
                strays.formUnion([range.lowerBound, range.upperBound].filter { !app.contains($0) })
            }
            return (counts, strays)
        }
        func total(_ applied: [String: [ClosedRange<Int64>]]) -> Int {
            applied.map { origin, ranges in
                covered(ranges, app: originOfA.contains(origin) ? appA : appB).counts.values.reduce(0, +)
            }.reduce(0, +)
        }
        remoteApplied = total(onRemote)
        pulledApplied = total(onA) + total(onB)
        func compare(_ side: String, _ ranges: [ClosedRange<Int64>], with app: Set<Int64>, of replica: String) {
            let (applied, strays) = covered(ranges, app: app)
            let twice = applied.filter { $0.value > 1 }
            if !twice.isEmpty {
                appliedTwice += twice.count
                problems.append("\(side) applied \(replica)'s transactions \(twice.keys.sorted().prefix(5)) more than once")
            }
            let missing = app.subtracting(applied.keys)
            if !missing.isEmpty {
                lost += missing.count
                problems.append("\(side) lacks \(replica)'s app transactions \(missing.sorted().prefix(5))")
            }
            if !strays.isEmpty { problems.append("\(side) holds \(replica) transactions \(strays.sorted().prefix(5)) that are not its app's") }
        }
        compare("the remote", originOfA.first.flatMap { onRemote[$0] } ?? [], with: appA, of: "A")
        compare("the remote", originOfB.first.flatMap { onRemote[$0] } ?? [], with: appB, of: "B")
        compare("B", originOfA.first.flatMap { onB[$0] } ?? [], with: appA, of: "A")
        compare("A", originOfB.first.flatMap { onA[$0] } ?? [], with: appB, of: "B")
    }
}
