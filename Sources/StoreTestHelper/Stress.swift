import Foundation
import JSONStore
import LogStore
import StoreProtocol
import StoreTestSupport

/// The random saves of one stress round, the same in the writer (which performs them) and in
/// the checker (which computes what the store must hold): both derive them from one seed.
struct StressPlan {
    enum Operation {
        case insert(UUID, String)
        case update(UUID, String)
        case delete(UUID)
    }

    let insertOnly: Bool
    private var generator: SeededGenerator
    private(set) var live: [UUID] = []
    /// Record id -> payload after the saves generated so far.
    private(set) var expected: [UUID: String] = [:]

    private var saves = 0

    init(seed: UInt64, insertOnly: Bool) {
        self.seed = seed
        generator = SeededGenerator(seed: seed)
        self.insertOnly = insertOnly
    }

    /// The next save's operations, applied to `expected`.
    /// Counter plans (odd seeds) update one record again and again with a same-sized value, as
    /// an app's counter or status field does: the files then keep their sizes across saves and
    /// compactions, which a store that recognises files by size and inode number gets wrong.
    var isCounter: Bool { Self.isCounter(seed: seed) }

    /// Whether the plan of `seed` is a counter plan (odd seeds).
    static func isCounter(seed: UInt64) -> Bool { seed % 2 == 1 }
    private let seed: UInt64

    mutating func nextSave() -> [Operation] {
        if isCounter, !insertOnly, let id = live.first {
            saves += 1
            let payload = String(format: "%012d", saves)
            expected[id] = payload
            return [.update(id, payload)]
        }
        saves += 1
        var operations: [Operation] = []
        var touched = Set<UUID>()
        for _ in 0..<Int.random(in: 1...8, using: &generator) {
            let roll = Int.random(in: 0..<10, using: &generator)
            // Same-sized payloads, so that updates in place keep a file's size: a store that
            // recognises files by their size must meet that case often.
            let payload = String(repeating: Character(UnicodeScalar(UInt8.random(in: 97...122, using: &generator))), count: 120)
            let candidates = live.filter { !touched.contains($0) }
            if insertOnly || roll < 3 || candidates.isEmpty {
                let id = UUID(uuid: generator.uuidBytes())
                live.append(id)
                expected[id] = payload
                touched.insert(id)
                operations.append(.insert(id, payload))
            } else if roll < 8 {
                let id = candidates[Int.random(in: 0..<candidates.count, using: &generator)]
                expected[id] = payload
                touched.insert(id)
                operations.append(.update(id, payload))
            } else {
                let id = candidates[Int.random(in: 0..<candidates.count, using: &generator)]
                live.removeAll { $0 == id }
                expected[id] = nil
                touched.insert(id)
                operations.append(.delete(id))
            }
        }
        return operations
    }
}

/// The configuration of the stress rounds: thresholds small enough that the rare paths run in
/// most rounds (JSON: compaction and history retention; log: segment seals and retention).
/// Counter rounds (odd seeds) keep the JSON store tiny and compact it at nearly every save, so
/// that its files keep their sizes and the kernel reuses their inode numbers.
func openStress(_ kind: String, _ path: String, seed: UInt64) throws -> ModelContainer {
    switch kind {
    case "json":
        return try ModelContainer(for: HelperRecord.self, configurations: JSONStoreConfiguration(
            url: URL(filePath: path), historyRetention: .transactions(StressLimits.keptTransactions(seed: seed)),
            compactionThreshold: StressPlan.isCounter(seed: seed) ? 1 : 2 << 10))
    case "log":
        return try ModelContainer(for: HelperRecord.self, configurations: LogStoreConfiguration(
            directory: URL(filePath: path), timestamps: [LogTimestamp(\HelperRecord.time)], segmentSize: 8 << 10,
            historyRetention: .bytes(StressLimits.logRetentionBytes)))
    default: fail("the store kind is json or log, not \(kind)")
    }
}

enum StressLimits {
    static func keptTransactions(seed: UInt64) -> Int { StressPlan.isCounter(seed: seed) ? 1 : 20 }
    static let logRetentionBytes = 40 << 10
}

/// The writer side: performs the plan's saves, acknowledging each on stdout, until killed.
///
/// `sabotage` is the harness's negative control: the writer acknowledges each save before
/// making it, so a kill between the two loses an acknowledged save, which the checker must report.
func stressWrite(kind: String, path: String, seed: UInt64, sabotage: Bool) throws {
    let container = try openStress(kind, path, seed: seed)
    var plan = StressPlan(seed: seed, insertOnly: kind == "log")
    for save in 0..<Int.max {
        let context = ModelContext(container)
        context.author = "stress"
        for operation in plan.nextSave() {
            switch operation {
            case .insert(let id, let payload):
                let record = HelperRecord(batch: save, item: 0, author: "stress", payload: payload, time: Date(timeIntervalSince1970: Double(save)))
                record.id = id
                context.insert(record)
            case .update(let id, let payload):
                guard let record = try context.fetch(FetchDescriptor<HelperRecord>(predicate: #Predicate { $0.id == id })).first else {
                    fail("stress writer: record \(id) to update is missing")
                }
                record.payload = payload
            case .delete(let id):
                guard let record = try context.fetch(FetchDescriptor<HelperRecord>(predicate: #Predicate { $0.id == id })).first else {
                    fail("stress writer: record \(id) to delete is missing")
                }
                context.delete(record)
            }
        }
        if sabotage { FileHandle.standardOutput.write(Data("ack \(save)\n".utf8)) }
        try context.save()
        if !sabotage { FileHandle.standardOutput.write(Data("ack \(save)\n".utf8)) }
    }
}

/// One writer of a stress round: its process, seed and acknowledged saves.
private struct StressWriter {
    let seed: UInt64
    let process: Process
    let pipe: Pipe
    var output = Data()

    init(executable: URL, kind: String, path: String, seed: UInt64, sabotage: Bool) throws {
        self.seed = seed
        process = Process()
        process.executableURL = executable
        process.arguments = ["stress-write", kind, path, String(seed)] + (sabotage ? ["sabotage"] : [])
        pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
    }

    var acknowledged: Int {
        String(decoding: output, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("ack ") }.count
    }

    /// Reads until `count` saves are acknowledged (or the writer ends).
    mutating func waitForAcknowledgements(_ count: Int) {
        while output.filter({ $0 == UInt8(ascii: "\n") }).count < count {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
        }
    }

    mutating func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        output.append(pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
    }
}

/// What the stress rounds found, and how often each rare path ran.
private struct StressFigures {
    var corrupt = 0, lost = 0, half = 0, historyMismatch = 0, acknowledged = 0
    /// JSON: rounds whose store compacted at least once; rounds killed during a compaction
    /// (its temporary file was left). Log: rounds that sealed a segment; rounds whose retention
    /// dropped one.
    var compacted = 0, killedInCompaction = 0, sealed = 0, retentionDropped = 0
    /// Rounds whose writers each updated one same-sized record (``StressPlan/isCounter``).
    var counterRounds = 0

    var failures: Int { corrupt + lost + half + historyMismatch }
}

/// The checker side: N rounds of start `writers` writers on one store, kill them at a random
/// instant, reopen and compare every record and the history with the plans. Prints the figures;
/// exits non-zero when anything was lost, altered, half-saved or unreadable.
func stress(kind: String, directory: String, rounds: Int, writers: Int, sabotage: Bool) throws {
    let executable = URL(filePath: CommandLine.arguments[0])
    var figures = StressFigures()
    var random = SystemRandomNumberGenerator()
    let run = String(random.next() % 1_000_000)   // a new name per run: never a store left by another
    for round in 0..<rounds {
        let path = directory + "/stress-\(kind)-\(run)-\(round)" + (kind == "json" ? ".json" : "")
        // Every other round is a counter round (odd seeds, for every writer of the round).
        let parity = UInt64(round % 2)
        if kind == "json" { _ = try openStress(kind, path, seed: parity) }   // created once: writers race on saves
        var children = try (0..<writers).map { _ in
            try StressWriter(executable: executable, kind: kind, path: path, seed: random.next() & ~1 | parity, sabotage: sabotage)
        }
        // Let the first writer acknowledge a random number of saves, then pause a random
        // moment: the kill lands at a random point of later saves, of every writer.
        children[0].waitForAcknowledgements(Int.random(in: 1...80, using: &random))
        let pause = DispatchTime.now().uptimeNanoseconds + UInt64.random(in: 0...4_000_000, using: &random)
        while DispatchTime.now().uptimeNanoseconds < pause {}
        for index in children.indices { children[index].kill() }
        if kind == "json", StressPlan.isCounter(seed: children[0].seed) { figures.counterRounds += 1 }
        figures.acknowledged += children.map(\.acknowledged).reduce(0, +)
        let seeds = children.map(\.seed).map(String.init).joined(separator: ",")
        notePaths(kind: kind, path: path, into: &figures)

        let verdict: String?
        do {
            verdict = try check(kind: kind, path: path, writers: children, figures: &figures)
        } catch {
            figures.corrupt += 1
            verdict = "the store did not open or read: \(error)"
        }
        if let verdict { print("round \(round) (seeds \(seeds)): \(verdict)") }
    }
    let paths = kind == "json"
        ? "compacted in \(figures.compacted) rounds, killed during a compaction in \(figures.killedInCompaction)"
        : "sealed a segment in \(figures.sealed) rounds, retention dropped segments in \(figures.retentionDropped)"
    print("\(kind) stress, \(writers) writer(s): \(rounds) rounds (\(figures.counterRounds) of one record updated in place), "
          + "\(figures.acknowledged) acknowledged saves; \(paths)")
    print("\(kind) stress: \(rounds) rounds, \(figures.acknowledged) acknowledged saves; corrupt stores \(figures.corrupt), "
          + "lost saves \(figures.lost), half transactions \(figures.half), history mismatches \(figures.historyMismatch)")
    if figures.failures > 0 { exit(1) }
}

/// Counts the rare paths a round's files show, before anything reopens them.
private func notePaths(kind: String, path: String, into figures: inout StressFigures) {
    let fileManager = FileManager.default
    if kind == "json" {
        let directory = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
        let names = (try? fileManager.contentsOfDirectory(atPath: directory)) ?? []
        if names.contains(where: { $0.hasPrefix(name) && $0.contains(".tmp-") }) { figures.killedInCompaction += 1 }
        // The base names the last journal entry folded into it: above 0 once a save was folded.
        if let head = try? FileHandle(forReadingFrom: URL(filePath: path)).read(upToCount: 400),
           let match = String(decoding: head, as: UTF8.self).firstMatch(of: /"journalSequence":(\d+)/), Int(match.1) ?? 0 > 0 {
            figures.compacted += 1
        }
    } else {
        let segments = ((try? fileManager.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".log") }.sorted()
        if segments.count > 1 || segments.first.map({ $0 != "segment-00000000000000000001.log" }) == true { figures.sealed += 1 }
        if let first = segments.first, first != "segment-00000000000000000001.log" { figures.retentionDropped += 1 }
    }
}

/// Compares the reopened store with what the writers' plans say it must hold; `nil` when it
/// holds exactly that, else what is wrong (after counting it in `figures`).
private func check(kind: String, path: String, writers: [StressWriter], figures: inout StressFigures) throws -> String? {
    let container = try openStress(kind, path, seed: writers[0].seed)
    let records = try ModelContext(container).fetch(FetchDescriptor<HelperRecord>())
    let stored = Dictionary(records.map { ($0.id, $0.payload) }, uniquingKeysWith: { a, _ in a })
    let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    guard stored.count == records.count else {
        figures.half += 1
        return "two records share an id"
    }

    // The possible numbers of transactions: one total per choice of each writer's last save.
    var expectedTransactions: Set<Int> = [0]
    var claimed = Set<UUID>()
    for writer in writers {
        // The states after 0, 1, … saves, and the transactions each implies (a save that
        // changes nothing, an update to the value a record has, records none).
        var plan = StressPlan(seed: writer.seed, insertOnly: kind == "log")
        var states: [[UUID: String]] = [plan.expected]
        var transactionsAfter = [0]
        var ids = Set<UUID>()
        for _ in 0...(writer.acknowledged + 1) {
            for operation in plan.nextSave() { if case .insert(let id, _) = operation { ids.insert(id) } }
            transactionsAfter.append(transactionsAfter.last! + (plan.expected == states.last! ? 0 : 1))
            states.append(plan.expected)
        }
        let mine = stored.filter { ids.contains($0.key) }
        claimed.formUnion(mine.keys)
        let acknowledged = writer.acknowledged
        if kind == "log" {
            // Retention drops the oldest saves; what is kept must be a run of whole saves that
            // ends at the last acknowledged one or the one after it.
            let ends = [acknowledged, acknowledged + 1].filter { isRun(mine, endingAt: $0, of: states) }
            guard !ends.isEmpty else {
                if let end = states.indices.last(where: { isRun(mine, endingAt: $0, of: states) }) {
                    figures.lost += acknowledged - end
                    return "\(acknowledged - end) acknowledged save(s) lost"
                }
                figures.half += 1
                return "the log holds no run of whole saves"
            }
            // Both ends fit when retention dropped all of this writer's saves.
            expectedTransactions = Set(expectedTransactions.flatMap { total in ends.map { total + transactionsAfter[$0] } })
        } else {
            guard let saves = [acknowledged, acknowledged + 1].first(where: { states[$0] == mine }) else {
                if let saves = states.indices.last(where: { states[$0] == mine }) {
                    figures.lost += acknowledged - saves
                    return "\(acknowledged - saves) acknowledged save(s) lost"
                }
                figures.half += 1
                return "the store matches no whole number of saves (a half transaction, or altered values)"
            }
            expectedTransactions = Set(expectedTransactions.map { $0 + transactionsAfter[saves] })
        }
    }
    if claimed.count != stored.count {
        figures.half += 1
        return "\(stored.count - claimed.count) record(s) no writer made"
    }
    // History: transaction numbers run without a gap to the last save; JSON keeps the newest
    // `keptTransactions`, the log those of its kept segments.
    let numbers = transactions.map(\.transactionIdentifier)
    let last = Int(numbers.last ?? 0)
    let contiguous = numbers.isEmpty || zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }
    let countIsRight = kind == "log" || numbers.count == min(last, StressLimits.keptTransactions(seed: writers[0].seed))
    if !contiguous || !countIsRight || !expectedTransactions.contains(last) {
        figures.historyMismatch += 1
        return "history holds transactions \(numbers.first ?? 0)…\(last) (\(numbers.count)), expected up to one of \(expectedTransactions.sorted())"
    }
    if kind == "log", let first = numbers.first {
        // Each kept transaction's records are in the store (inserts only): their count matches.
        let keptInserts = transactions.reduce(0) { $0 + $1.changes.count }
        if keptInserts != stored.count || first < 1 {
            figures.historyMismatch += 1
            return "history after retention names \(keptInserts) inserts, the store holds \(stored.count) records"
        }
    }
    return nil
}

/// Whether `records` are the inserts of saves `start..<end` for some `start` (insert-only
/// plans: each state holds the one before it).
private func isRun(_ records: [UUID: String], endingAt end: Int, of states: [[UUID: String]]) -> Bool {
    (0...end).contains { start in states[end].filter { states[start][$0.key] == nil } == records }
}
