import Foundation
import MemoryStore
import StoreConformance
import StoreProtocol
import Testing

/// `container.mainContext` and autosave (issue 31): one main-actor context per container that
/// saves by itself once the main actor is idle, one save for a burst of changes, and a failed
/// autosave reported, never dropped.
@MainActor @Suite struct MainContextTests {
    let container: ModelContainer

    init() throws {
        container = try ModelContainer(for: Schema(ConformanceModels.types), configurations: [MemoryStoreConfiguration()])
    }

    /// How many saves reached the store: one history transaction each.
    func saves(in container: ModelContainer? = nil) throws -> Int {
        try (container ?? self.container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
    }

    func storedNames() throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    /// Lets the main actor run what is scheduled on it until `done` holds (at most 1,000 turns);
    /// returns whether it held. No clock: each turn runs the jobs enqueued before it.
    func untilIdle(_ done: () throws -> Bool) async rethrows -> Bool {
        for _ in 0..<1_000 {
            if try done() { return true }
            await Task.yield()
        }
        return try done()
    }

    @Test func oneMainContextPerContainerThatAutosaves() throws {
        let main = container.mainContext
        #expect(main === container.mainContext, "the same instance each time")
        #expect(main.container === container)
        #expect(main.autosaveEnabled)
        #expect(!ModelContext(container).autosaveEnabled, "a context made by hand does not autosave")
        let other = try ModelContainer(for: Schema(ConformanceModels.types), configurations: [MemoryStoreConfiguration()])
        #expect(other.mainContext !== main, "one per container")
    }

    @Test func aBurstOfChangesIsSavedOnceWhenTheMainActorIsIdle() async throws {
        let context = container.mainContext
        let iceland = SuiteVoyage(name: "Iceland")
        context.insert(iceland)
        context.insert(SuiteVoyage(name: "Chile"))
        iceland.name = "Iceland in June"
        let item = SuiteBucketItem(title: "Geysir")
        iceland.bucketList.append(item)
        #expect(try saves() == 0, "nothing is saved while the main actor is busy")
        #expect(await untilIdle { !context.hasChanges }, "the autosave ran")
        #expect(try saves() == 1, "one save for the burst")
        #expect(try storedNames() == ["Chile", "Iceland in June"])

        // A second burst, of changes to saved models and a delete: one more save.
        iceland.name = "Iceland"
        context.delete(item)
        #expect(await untilIdle { !context.hasChanges })
        #expect(try saves() == 2)
        // Nothing changed since: idle turns save nothing more.
        for _ in 0..<100 { await Task.yield() }
        #expect(try saves() == 2)
    }

    @Test func aChangeOfAFetchedModelIsAutosaved() async throws {
        let seed = ModelContext(container)
        seed.insert(SuiteVoyage(name: "Peru"))
        try seed.save()
        let context = container.mainContext
        let peru = try #require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first)
        peru.name = "Peru in May"
        #expect(try await untilIdle { try storedNames() == ["Peru in May"] })
        #expect(try saves() == 2)
    }

    @Test func aContextMadeByHandAutosavesWhenTurnedOn() async throws {
        let context = ModelContext(container)
        context.insert(SuiteVoyage(name: "Peru"))
        context.autosaveEnabled = true   // with a pending change: schedules a save of it
        #expect(await untilIdle { !context.hasChanges })
        #expect(try storedNames() == ["Peru"])
        context.autosaveEnabled = false
        context.insert(SuiteVoyage(name: "Chile"))
        for _ in 0..<100 { await Task.yield() }
        #expect(context.hasChanges, "off: nothing saves it")
        #expect(try saves() == 1)
    }

    @Test func aFailedAutosaveIsPostedAndHandedToTheHandler() async throws {
        let readOnly = try ModelContainer(for: Schema(ConformanceModels.types),
                                          configurations: [MemoryStoreConfiguration(allowsSave: false)])
        let context = readOnly.mainContext
        // No periodic retry within the test, however slow the machine: exactly one failure.
        context.autosaveInterval = .seconds(3_600)
        var handled: [any Error] = []
        context.autosaveErrorHandler = { handled.append($0) }
        let posted = Locked<[String]>([])
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.autosaveDidFail, object: context, queue: nil) { note in
            let error = note.userInfo?[ModelContext.autosaveErrorKey].map { "\($0)" } ?? "no error"
            posted.withLock { $0.append(error) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        context.insert(SuiteVoyage(name: "Peru"))
        #expect(await untilIdle { !handled.isEmpty }, "the handler was called")
        for _ in 0..<100 { await Task.yield() }
        #expect(handled.count == 1, "once: the failed save does not schedule itself again")
        #expect((handled.first as? DataStoreError)?.code == .readOnly)
        #expect(posted.withLock { $0 }.count == 1)
        #expect(posted.withLock { $0 }.first?.contains("read-only") == true)
        #expect(context.hasChanges, "the changes are kept")
    }

    @Test func aChangeMadeDuringAnAutosaveIsAutosavedToo() async throws {
        let context = container.mainContext
        context.autosaveInterval = .seconds(3_600)   // only the save after a change can store it
        let peru = SuiteVoyage(name: "Peru")
        context.insert(peru)
        #expect(await untilIdle { !context.hasChanges })
        // The observer runs on the main actor (the autosave posts there); the model is the main actor's.
        nonisolated(unsafe) let voyage = peru
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { _ in
            MainActor.assumeIsolated { if voyage.name == "Peru in May" { voyage.name = "Peru in June" } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        peru.name = "Peru in May"   // autosaved; the didSave observer then changes it again
        #expect(await untilIdle { (try? storedNames()) == ["Peru in June"] }, "the observer's change was saved: \((try? storedNames()) ?? [])")
        #expect(!context.hasChanges)
    }

    @Test func autosaveIntervalIsAtLeastOneSecond() {
        let context = container.mainContext
        context.autosaveInterval = .zero
        #expect(context.autosaveInterval == .seconds(1))
        context.autosaveInterval = .seconds(-1)
        #expect(context.autosaveInterval == .seconds(1))
        context.autosaveInterval = .seconds(5)
        #expect(context.autosaveInterval == .seconds(5))
    }

    @Test func undoOnTheMainContext() async throws {
        #expect(!container.isUndoEnabled, "off by default, as SwiftData's")
        container.isUndoEnabled = true
        let context = container.mainContext
        let undoManager = try #require(context.undoManager)
        let peru = SuiteVoyage(name: "Peru")
        context.insert(peru)
        #expect(await untilIdle { !context.hasChanges })
        peru.name = "Peru in May"
        undoManager.undo()   // right after the change, before the autosave: undoes the rename
        #expect(peru.name == "Peru")
        #expect(try await untilIdle { try storedNames() == ["Peru"] && !context.hasChanges })
        undoManager.undo()   // the saved insert, undone: autosaved as a delete
        #expect(try await untilIdle { try storedNames() == [] })
        undoManager.redo()
        #expect(try await untilIdle { try storedNames() == ["Peru"] })
        container.isUndoEnabled = false
        #expect(context.undoManager == nil)
    }
}
