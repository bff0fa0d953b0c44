import Foundation
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

    init(seed: UInt64, insertOnly: Bool) {
        generator = SeededGenerator(seed: seed)
        self.insertOnly = insertOnly
    }

    /// The next save's operations, applied to `expected`.
    mutating func nextSave() -> [Operation] {
        var operations: [Operation] = []
        var touched = Set<UUID>()
        for _ in 0..<Int.random(in: 1...8, using: &generator) {
            let roll = Int.random(in: 0..<10, using: &generator)
            let payload = String(repeating: "abcdefghij", count: Int.random(in: 0...200, using: &generator))
            let candidates = live.filter { !touched.contains($0) }
            if insertOnly || roll < 5 || candidates.isEmpty {
                let id = UUID(uuid: generator.uuidBytes())
                live.append(id)
                expected[id] = payload
                touched.insert(id)
                operations.append(.insert(id, payload))
            } else if roll < 8 {
                let id = candidates[Int.random(in: 0..<candidates.count, using: &generator)]
                expected[id] = payload + "u"
                touched.insert(id)
                operations.append(.update(id, payload + "u"))
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

/// The writer side: performs the plan's saves, acknowledging each on stdout, until killed.
func stressWrite(kind: String, path: String, seed: UInt64) throws {
    let container = try open(kind, path)
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
        try context.save()
        FileHandle.standardOutput.write(Data("ack \(save)\n".utf8))
    }
}

/// The checker side: N rounds of start a writer, kill it at a random instant, reopen and
/// compare with the plan. Prints the figures.
func stress(kind: String, directory: String, rounds: Int) throws {
    let executable = URL(filePath: CommandLine.arguments[0])
    var corrupt = 0, lost = 0, half = 0, historyMismatch = 0, totalAcknowledged = 0
    var seeds = SystemRandomNumberGenerator()
    for round in 0..<rounds {
        let seed = seeds.next()
        let path = directory + "/stress-\(kind)-\(round)" + (kind == "json" ? ".json" : "")
        let writer = Process()
        writer.executableURL = executable
        writer.arguments = ["stress-write", kind, path, String(seed)]
        let pipe = Pipe()
        writer.standardOutput = pipe
        try writer.run()
        // Let it acknowledge a random number of saves, then pause a random moment: the kill
        // lands at a random point of a later save.
        let target = Int.random(in: 1...60, using: &seeds)
        var output = Data()
        while output.filter({ $0 == UInt8(ascii: "\n") }).count < target {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
        }
        let pause = DispatchTime.now().uptimeNanoseconds + UInt64.random(in: 0...4_000_000, using: &seeds)
        while DispatchTime.now().uptimeNanoseconds < pause {}
        kill(writer.processIdentifier, SIGKILL)
        output.append(pipe.fileHandleForReading.readDataToEndOfFile())
        writer.waitUntilExit()
        let acknowledged = String(decoding: output, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("ack ") }.count
        totalAcknowledged += acknowledged

        let container: ModelContainer
        let stored: [UUID: String]
        let transactions: Int
        do {
            container = try open(kind, path)
            stored = Dictionary(try ModelContext(container).fetch(FetchDescriptor<HelperRecord>()).map { ($0.id, $0.payload) },
                                uniquingKeysWith: { a, _ in a })
            transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
        } catch {
            corrupt += 1
            print("round \(round) (seed \(seed)): the store did not open: \(error)")
            continue
        }
        // The states after 0, 1, … saves; the store must be the one after `acknowledged` or one more.
        // A save that changes nothing (an update to the value a record already has) records no
        // transaction, so count the transactions each state implies.
        var plan = StressPlan(seed: seed, insertOnly: kind == "log")
        var states: [[UUID: String]] = [plan.expected]
        var transactionsAfter = [0]
        for _ in 0...(acknowledged + 1) {
            _ = plan.nextSave()
            transactionsAfter.append(transactionsAfter.last! + (plan.expected == states.last! ? 0 : 1))
            states.append(plan.expected)
        }
        if let saves = [acknowledged, acknowledged + 1].first(where: { states[$0] == stored }) {
            if transactions != transactionsAfter[saves] {
                historyMismatch += 1
                print("round \(round) (seed \(seed)): \(saves) saves in the data (\(transactionsAfter[saves]) changing) but \(transactions) transactions")
            }
        } else if let saves = states.indices.last(where: { states[$0] == stored }) {
            lost += acknowledged - saves
            print("round \(round) (seed \(seed)): \(acknowledged - saves) acknowledged save(s) lost")
        } else {
            half += 1
            print("round \(round) (seed \(seed)): the store matches no whole number of saves (a half transaction)")
        }
    }
    print("\(kind) stress: \(rounds) rounds, \(totalAcknowledged) acknowledged saves; corrupt stores \(corrupt), lost saves \(lost), "
          + "half transactions \(half), history mismatches \(historyMismatch)")
    if corrupt + lost + half + historyMismatch > 0 { exit(1) }
}
