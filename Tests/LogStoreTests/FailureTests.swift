import Foundation
import StoreProtocol
import LogStore
import StoreTestSupport
import Testing

/// Failure testing (issue 7): faults below the log, corrupt files, killed writers.
@Suite struct LogFailureTests {
    func state(_ container: ModelContainer) throws -> [String] {
        let readings = try ModelContext(container).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.timestamp)]))
        return readings.map { "\($0.value)" } + ["transactions=\(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count)"]
    }

    /// Each write step of an append (sealing the full segment's index, creating the next
    /// segment, the append and its flush) fails in turn; a save that throws leaves the log as
    /// before, and the next save works.
    @Test func aFaultAtEveryWriteStepOfASaveLeavesTheLogAsBefore() throws {
        var steps = 0
        for step in 1...60 {
            let directory = try temporaryDirectory()
            let settings = configuration(directory, segmentSize: 600)
            let (container, _) = try open(settings)
            try append(0..<6, perSave: 3, to: container)
            let before = try state(container)

            let (saved, operations) = try withFault(atStep: step, under: directory, shortWrite: 5) {
                do {
                    try append(100..<103, perSave: 3, to: container)
                    return true
                } catch let error as DataStoreError {
                    #expect(error.code == .ioFailure, "step \(step): \(error)")
                    return false
                }
            }
            guard operations >= step else { break }
            steps = step

            let after = saved ? before.dropLast() + ["100.0", "101.0", "102.0", "transactions=3"] : before
            #expect(try state(container) == after, "step \(step), saved \(saved): this instance")
            #expect(try state(try open(settings).0) == after, "step \(step), saved \(saved): reopened")
            try append(200..<201, perSave: 1, to: container)
            #expect(try state(try open(settings).0).contains("200.0"), "step \(step): the next save works")
        }
        #expect(steps >= 4, "an append that seals a segment has \(steps) write steps")
    }

    /// 2,000 damaged logs (segments, index files, the identity file; `CORRUPT_INPUTS=10000` for more; the full run only): typed errors or
    /// reads of exactly the stored data (or of the data before the last save, when the damage looks like a torn last
    /// record), never a crash, a hang, a huge allocation or a read of less, and a failed open changes nothing.
    @Test(.enabled(if: FullTestRun.isEnabled)) func corruptFilesEndInTypedErrors() throws {
        let directory = try temporaryDirectory()
        func readAll(allowsSave: Bool) throws -> [String] {
            var settings = configuration(directory, segmentSize: 700)
            settings.allowsSave = allowsSave
            let (container, store) = try open(settings)
            let data = try state(container)
            return data + ["log transactions=\(try store.fetchHistory(HistoryDescriptor<LogTransaction>()).count)"]
        }
        var states: [[String]] = []
        do {
            let (container, _) = try open(configuration(directory, segmentSize: 700))
            states.append(try readAll(allowsSave: false))
            for save in 0..<10 {
                try append((save * 3)..<(save * 3 + 3), perSave: 3, to: container)
                states.append(try readAll(allowsSave: false))
            }
        }
        #expect(try readAll(allowsSave: false) == states.last)
        #expect(try directoryContents(directory).keys.contains { $0.hasSuffix(".index") }, "the log has sealed segments")
        let report = try feedCorruptInputs(to: directory, cases: corruptInputCases(), seed: 11, statesAfterEachSave: states, read: readAll)
        #expect(report.problems.isEmpty, "\(report.problems.count) problems: \(report.problems.prefix(5))")
        let typedErrors = report.typedErrors, reads = report.allReads
        #expect(typedErrors + reads == 2 * corruptInputCases(), "every case ended in a typed error or a read")
        print(report.summary("LogStore", cases: corruptInputCases(), torn: "record"))
        // Damage to an index file (a cache, rebuilt) or to the last record (a torn write, cut) is
        // read around by design; damage to whole records is reported.
        #expect(typedErrors > 500, "damage is detected: \(typedErrors) typed errors, \(reads) reads")
    }

    /// The stress tool: a writer making random inserts, updates and deletes, killed at a random
    /// instant 200 times; every store holds exactly its acknowledged saves (or one more), and
    /// the rare paths ran in most rounds.
    @Test(.enabled(if: FullTestRun.isEnabled)) func twoHundredKilledWritersLoseNothing() throws {
        let run = try StressRun("log", rounds: 200)
        #expect(run.isClean, "\(run.summary)")
        #expect(run.figure("sealed a segment in") ?? 0 > 100, "\(run.summary)")
    }

    /// Two writers on one store, killed at once at a random instant, 60 times.
    @Test(.enabled(if: FullTestRun.isEnabled)) func twoWritersKilledAtOnceLoseNothing() throws {
        let run = try StressRun("log", rounds: 60, writers: 2)
        #expect(run.isClean, "\(run.summary)")
        #expect(run.figure("sealed a segment in") ?? 0 > 30, "\(run.summary)")
    }

    /// The stress tool's negative control: writers that acknowledge a save before making it
    /// lose acknowledged saves when killed, and the checker reports it.
    @Test(.enabled(if: FullTestRun.isEnabled)) func theStressToolCatchesWritersThatAcknowledgeEarly() throws {
        let run = try StressRun("log", rounds: 20, sabotage: true)
        #expect(run.status == 1, "\(run.summary)")
        #expect(run.figure("lost saves") ?? 0 > 0, "\(run.summary)")
    }

    /// Two processes appending to one log at once: nothing lost, transactions numbered 1…2000.
    @Test(.enabled(if: FullTestRun.isEnabled)) func twoProcessesAppendToOneLogAtOnce() throws {
        let path = try temporaryDirectory().appending(path: "shared").path
        let saves = 1_000
        let first = try ChildProcess(["write", "log", path, "first", "\(saves)", "1"])
        let second = try ChildProcess(["write", "log", path, "second", "\(saves)", "1"])
        #expect(first.finish() == 0)
        #expect(second.finish() == 0)
        let reader = try ChildProcess(["read", "log", path])
        #expect(reader.finish() == 0)
        #expect(reader.lines == ["records \(2 * saves)", "transactions first \(saves)", "transactions second \(saves)"])
        func seenOthers(_ child: ChildProcess) -> Int {
            child.lines.first { $0.hasPrefix("seen-others ") }.flatMap { Int($0.dropFirst("seen-others ".count)) } ?? -1
        }
        #expect(max(seenOthers(first), seenOthers(second)) == saves)
    }
}
