import Foundation
import JSONStore
import DataStores
import StoreTestSupport
import Testing

#if DEBUG
/// `Ledger` as the next release declares it: `name` renamed to `title`, `stars` added.
@Model final class LedgerV2 {
    static var entityName: String { "Ledger" }
    var id: UUID
    @Attribute(originalName: "name") var title: String
    var count: Int
    var score: Double
    var note: String?
    var stars: Int = 3
}

/// A migration is one compaction-like rewrite (issue 15): the power goes at each of its file
/// operations in turn, the files are rewound to what a disk could hold, and the store must then
/// read back exactly as it was (through the old models) or exactly as migrated (through the new),
/// rows and history; opening it with the new models then migrates it if it was not.
@Suite struct JSONMigrationPowerLossTests {
    /// Rows as "id name count score note stars", sorted; the old models have no stars (3 once migrated).
    typealias Rows = [String]

    @Test func aPowerLossAtAnyOperationOfAMigrationLeavesTheOldStoreOrTheMigratedOne() throws {
        let tally = try sweep(sabotage: .none)
        print("JSONStore migration power loss: \(tally.summary)")
        #expect(tally.failures.isEmpty, "\(tally.failures.prefix(5))")
        #expect(tally.readAsOld > 0 && tally.readAsMigrated > 0, "power losses left both outcomes: \(tally.summary)")
    }

    /// The negative control: a migration that does not flush its new base file is caught.
    @Test func aMigrationThatSkipsAFlushIsCaught() throws {
        let tally = try sweep(sabotage: .skipFileSync)
        print("JSONStore migration power loss with skip-file-sync: \(tally.summary)")
        #expect(!tally.failures.isEmpty, "\(tally.summary)")
    }

    struct Tally {
        var rounds = 0
        var readAsOld = 0
        var readAsMigrated = 0
        var failures: [String] = []
        var summary: String { "\(rounds) rounds; read as old \(readAsOld), as migrated \(readAsMigrated); failures \(failures.count)" }
    }

    func sweep(sabotage: PowerLossSimulator.Sabotage) throws -> Tally {
        var tally = Tally()
        let operations = try operationsOfOneMigration()
        #expect(operations > 4, "a migration writes, flushes and renames: \(operations) file operations")
        var generator = SeededGenerator(seed: 0x15_0001)
        for crashAt in 1...operations {
            for _ in 0..<3 { try round(crashAt: crashAt, sabotage: sabotage, generator: &generator, into: &tally) }
        }
        return tally
    }

    func openV1(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Ledger.self, configurations: JSONStoreConfiguration(url: url))
    }

    func openV2(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: LedgerV2.self, configurations: JSONStoreConfiguration(url: url))
    }

    /// A store with rows both in its base file and in its journal, and history with updates and
    /// a delete; returns what it reads back through the old models.
    func seed(_ url: URL) throws -> (rows: Rows, history: [TransactionSummary]) {
        let container = try ModelContainer(for: Ledger.self, configurations: JSONStoreConfiguration(url: url, compactionThreshold: 2_000))
        let context = ModelContext(container)
        for batch in 0..<4 {
            for index in 0..<5 {
                let number = batch * 5 + index
                context.insert(Ledger(id: UUID(), name: "ledger \(number)", count: number, score: Double(number) / 3,
                                      note: number.isMultiple(of: 2) ? "even" : nil))
            }
            context.author = "batch \(batch)"
            try context.save()
        }
        let ledgers = try context.fetch(FetchDescriptor<Ledger>(sortBy: [SortDescriptor(\.count)]))
        ledgers[1].count = 100
        context.delete(ledgers[2])
        try context.save()
        return (try rowsV1(container), try history(container))
    }

    func rowsV1(_ container: ModelContainer) throws -> Rows {
        try ModelContext(container).fetch(FetchDescriptor<Ledger>()).map { "\($0.id) \($0.name) \($0.count) \($0.score) \($0.note ?? "nil") 3" }.sorted()
    }

    func rowsV2(_ container: ModelContainer) throws -> Rows {
        try ModelContext(container).fetch(FetchDescriptor<LedgerV2>()).map { "\($0.id) \($0.title) \($0.count) \($0.score) \($0.note ?? "nil") \($0.stars)" }.sorted()
    }

    func history(_ container: ModelContainer) throws -> [TransactionSummary] {
        try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(TransactionSummary.init)
    }

    /// How many file operations one migration of a seeded store makes.
    func operationsOfOneMigration() throws -> Int {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appending(path: "store.json")
        _ = try seed(url)
        let simulator = PowerLossSimulator(directory: directory, crashAt: Int.max, sabotage: .none)
        simulator.start()
        defer { var generator = SeededGenerator(seed: 1); simulator.powerLoss(using: &generator, lossProbability: 0, garbles: false) }
        _ = try openV2(url)
        return simulator.operationCount
    }

    func round(crashAt: Int, sabotage: PowerLossSimulator.Sabotage, generator: inout SeededGenerator, into tally: inout Tally) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appending(path: "store.json")
        let before = try seed(url)
        let power = PowerLossRound(directory: directory, crashAt: crashAt, sabotage: sabotage, using: &generator)
        _ = try? openV2(url)
        tally.rounds += 1
        var ignored = PowerLossTally()
        let report = power.powerLoss(during: "migration", using: &generator, into: &ignored)
        let context = "crash at operation \(crashAt) (\(power.simulator.crashEvent ?? "none")), \(report)"
        do {
            // The old models open the store only while it holds the old schema.
            if let old = try? openV1(url) {
                tally.readAsOld += 1
                let (rows, history) = (try rowsV1(old), try history(old))
                if rows != before.rows || history != before.history {
                    tally.failures.append("\(context): read as old, rows or history differ")
                }
            } else {
                tally.readAsMigrated += 1
            }
            let migrated = try openV2(url)
            if try rowsV2(migrated) != before.rows || (try history(migrated)) != before.history {
                tally.failures.append("\(context): read as migrated, rows or history differ")
            }
        } catch {
            tally.failures.append("\(context): reopening failed: \(error)")
        }
    }
}
#endif
