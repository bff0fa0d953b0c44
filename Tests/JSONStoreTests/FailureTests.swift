import Foundation
import StoreProtocol
import JSONStore
import StoreTestSupport
import Testing

/// Failure testing (issue 7): faults below the store, corrupt files, killed writers.
@Suite struct JSONFailureTests {
    /// The store's data and history, to compare before and after a failed save.
    func state(_ container: ModelContainer) throws -> [String] {
        let entries = try ModelContext(container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.title)]))
        return entries.map { "\($0.title.prefix(1))=\($0.count)" } + ["transactions=\(try transactionCount(container))"]
    }

    /// Each write step of a save (journal append and flush, and the compaction it triggers:
    /// temporary file, flush, rename, directory flush) fails in turn, with ENOSPC, EIO or a short
    /// write. A save that throws leaves the store as before, in this instance and reopened; the
    /// next save works.
    @Test func aFaultAtEveryWriteStepOfASaveLeavesTheStoreAsBefore() throws {
        var steps = 0
        for step in 1...100 {
            let directory = try temporaryDirectory()
            let url = directory.appending(path: "store.json")
            let container = try openContainer(url, compactionThreshold: 64)
            try save(["a", "b"], to: container)
            let before = try state(container)

            let (saved, operations) = try withFault(atStep: step, under: directory, shortWrite: 7) {
                let context = ModelContext(container)
                // Long enough that the journal outgrows the base file (its recorded schema
                // included), so the save compacts.
                context.insert(Entry("c" + String(repeating: ".", count: 3_000)))
                let entries = try context.fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.title)]))
                entries[0].count = 5
                context.delete(entries[1])
                do {
                    try context.save()
                    return true
                } catch let error as DataStoreError {
                    #expect(error.code == .ioFailure, "step \(step): \(error)")
                    return false
                }
            }
            guard operations >= step else { break }   // every step of the save has failed once
            steps = step

            let after = saved ? ["a=5", "c=0", "transactions=3"] : before
            #expect(try state(container) == after, "step \(step), saved \(saved): this instance")
            #expect(try state(try openContainer(url)) == after, "step \(step), saved \(saved): reopened")
            try save(["d"], to: container)
            #expect(try titles(try openContainer(url)).contains("d"), "step \(step): the next save works")
        }
        #expect(steps >= 6, "the save and its compaction have \(steps) write steps")
    }

    /// 2,000 damaged stores (`DATASTORES_FULL_TESTS=1 CORRUPT_INPUTS=10000 swift test --filter corruptFiles` for more; the full run only): opening, fetching and
    /// reading history end in a typed error or a read of exactly the stored data (or of the data before the last save,
    /// when the damage looks like a torn last line), never a crash, a hang or a read of less; a failed open changes no file.
    @Test(.enabled(if: FullTestRun.isEnabled)) func corruptFilesEndInTypedErrors() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        var states: [[String]] = []
        do {
            let container = try openContainer(url, compactionThreshold: 300)
            states.append(try state(container))
            for title in (0..<6).map({ "e\($0)" }) {
                try save([title], to: container, author: "app")
                states.append(try state(container))
            }
            let context = ModelContext(container)
            let entries = try context.fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.title)]))
            entries[0].count = 9
            context.delete(entries[1])
            try context.save()
            states.append(try state(container))
            try save(["late"], to: container)   // after the compaction: base and journal both hold data
            states.append(try state(container))
        }
        #expect(try state(try openContainer(url, allowsSave: false)) == states.last)
        let report = try feedCorruptInputs(to: directory, cases: corruptInputCases(), seed: 7, statesAfterEachSave: states) { allowsSave in
            try state(try openContainer(url, allowsSave: allowsSave))
        }
        #expect(report.problems.isEmpty, "\(report.problems.count) problems: \(report.problems.prefix(5))")
        let typedErrors = report.typedErrors, reads = report.allReads
        #expect(typedErrors + reads == 2 * corruptInputCases(), "every case ended in a typed error or a read")
        print(report.summary("JSONStore", cases: corruptInputCases(), torn: "line"))
        #expect(typedErrors > 1_000, "most damage is detected: \(typedErrors) typed errors, \(reads) reads")
    }

    /// The corrupt-input loop's negative control: a read that returns less than the store held
    /// is reported.
    @Test func theCorruptInputLoopReportsAReadOfLess() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        try save(["a", "b", "c"], to: try openContainer(url))
        let expected = try state(try openContainer(url))
        let report = try feedCorruptInputs(to: directory, cases: 20, seed: 3, statesAfterEachSave: [expected]) { _ in
            Array(expected.dropFirst())   // a "store" that silently loses a row
        }
        #expect(report.problems.count == 40)
    }

    /// The stress tool: a writer making random inserts, updates and deletes, killed at a random
    /// instant 200 times; every store holds exactly its acknowledged saves (or one more), and
    /// the rare paths ran in most rounds.
    @Test(.enabled(if: FullTestRun.isEnabled)) func twoHundredKilledWritersLoseNothing() throws {
        let run = try StressRun("json", rounds: 200)
        #expect(run.isClean, "\(run.summary)")
        #expect(run.figure("compacted in") ?? 0 > 100, "\(run.summary)")
    }

    /// Two writers on one store, killed at once at a random instant, 60 times.
    @Test(.enabled(if: FullTestRun.isEnabled)) func twoWritersKilledAtOnceLoseNothing() throws {
        let run = try StressRun("json", rounds: 60, writers: 2)
        #expect(run.isClean, "\(run.summary)")
        #expect(run.figure("compacted in") ?? 0 > 30, "\(run.summary)")
    }

    /// The stress tool's negative control: writers that acknowledge a save before making it
    /// lose acknowledged saves when killed, and the checker reports it.
    @Test(.enabled(if: FullTestRun.isEnabled)) func theStressToolCatchesWritersThatAcknowledgeEarly() throws {
        let run = try StressRun("json", rounds: 20, sabotage: true)
        #expect(run.status == 1, "\(run.summary)")
        #expect(run.figure("lost saves") ?? 0 > 0, "\(run.summary)")
    }
}
