import Foundation
import JSONStore
import MemoryStore
import StoreConformance
import StoreProtocol
import StoreTestSupport
import Testing

/// Undo and fetch when another context saves the same models, and undo of an insert that became
/// an update (issue 28's adversary findings B, C and D), on a memory and a JSON store.
@Suite struct UndoAcrossContextsTests {
    enum Backend: String, CaseIterable {
        case memory, json
    }

    private func makeContainer(_ backend: Backend) throws -> ModelContainer {
        let schema = Schema(ConformanceModels.types)
        switch backend {
        case .memory:
            return try ModelContainer(for: schema, configurations: [MemoryStoreConfiguration()])
        case .json:
            let url = try temporaryDirectory().appending(path: "trips.json")
            return try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(url: url)])
        }
    }

    /// The stored trips as "name destination rating", read by a fresh context.
    private func stored(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)])).map {
            "\($0.name) \($0.destination) \($0.rating)"
        }
    }

    private func seed(_ container: ModelContainer, _ trips: SuiteTrip...) throws {
        let context = ModelContext(container)
        for trip in trips { context.insert(trip) }
        try context.save()
    }

    /// B: an undo reverses what its group changed, not another context's save a fetch brought in.
    @Test(arguments: Backend.allCases)
    func anUndoAfterAFetchThatRefreshedAnotherSaveUndoesOnlyItsOwnChange(backend: Backend) throws {
        let container = try makeContainer(backend)
        try seed(container, SuiteTrip(name: "Iceland", destination: "Reykjavik", rating: 1))
        let a = ModelContext(container)
        a.undoManager = ModelUndoManager()
        let b = ModelContext(container)
        let mine = try #require(a.fetch(FetchDescriptor<SuiteTrip>()).first)
        let theirs = try #require(b.fetch(FetchDescriptor<SuiteTrip>()).first)
        mine.destination = "Akureyri"
        try a.save()
        theirs.rating = 5
        try b.save()
        _ = try a.fetch(FetchDescriptor<SuiteTrip>())
        #expect(mine.rating == 5, "the fetch shows the other context's save")
        a.undoManager?.undo()
        #expect(mine.destination == "Reykjavik")
        #expect(mine.rating == 5, "the other context's change is not this context's to undo")
        try a.save()
        #expect(try stored(container) == ["Iceland Reykjavik 5"])
        a.undoManager?.redo()
        try a.save()
        #expect(try stored(container) == ["Iceland Akureyri 5"])
    }

    /// B: undo and redo set back only what their group changed: redoing the first of two
    /// undone groups leaves the second's attribute undone.
    @Test(arguments: Backend.allCases)
    func anUndoLeavesAttributesItsGroupDidNotChange(backend: Backend) throws {
        let container = try makeContainer(backend)
        try seed(container, SuiteTrip(name: "Iceland", destination: "Reykjavik", rating: 1))
        let a = ModelContext(container)
        a.undoManager = ModelUndoManager()
        let trip = try #require(a.fetch(FetchDescriptor<SuiteTrip>()).first)
        trip.destination = "Akureyri"
        try a.processPendingChanges()
        trip.rating = 7
        try a.processPendingChanges()
        a.undoManager?.undo()
        a.undoManager?.undo()
        #expect(trip.destination == "Reykjavik" && trip.rating == 1)
        a.undoManager?.redo()
        #expect(trip.destination == "Akureyri" && trip.rating == 1)
        try a.save()
        #expect(try stored(container) == ["Iceland Akureyri 1"])
    }

    /// C: undoing a saved insert that became an update of a stored row (made by the store, or by
    /// the context when it holds the stored model) gives the row its values back; it does not
    /// delete it. Redo applies the update again.
    @Test(arguments: Backend.allCases, [false, true])
    func undoingASavedUpsertRestoresTheStoredRow(backend: Backend, holdingTheStoredModel: Bool) throws {
        let container = try makeContainer(backend)
        try seed(container, SuiteTrip(name: "Iceland", destination: "stored", rating: 1))
        let a = ModelContext(container)
        a.undoManager = ModelUndoManager()
        let held = holdingTheStoredModel ? try a.fetch(FetchDescriptor<SuiteTrip>()).first : nil
        a.insert(SuiteTrip(name: "Iceland", destination: "upserted", rating: 2))
        try a.save()
        #expect(try stored(container) == ["Iceland upserted 2"])
        #expect(held.map { $0.destination == "upserted" } ?? true)
        a.undoManager?.undo()
        #expect(held.map { $0.destination == "stored" } ?? true)
        try a.save()
        #expect(try stored(container) == ["Iceland stored 1"])
        a.undoManager?.redo()
        try a.save()
        #expect(try stored(container) == ["Iceland upserted 2"])
    }

    /// C: the same for an insert with a stored model's `id`, and for one with related models
    /// (the context loads the stored model and gives it the inserted values and stops).
    @Test(arguments: Backend.allCases)
    func undoingASavedUpsertByIDOrWithRelatedModelsRestoresTheStoredOne(backend: Backend) throws {
        let container = try makeContainer(backend)
        let original = SuiteTrip(name: "Iceland", destination: "stored", rating: 1)
        let expedition = SuiteExpedition(name: "Arctic", note: "stored")
        expedition.stops = [SuiteStop(place: "Tromsø")]
        let seeding = ModelContext(container)
        seeding.insert(original)
        seeding.insert(expedition)
        try seeding.save()
        let a = ModelContext(container)
        a.undoManager = ModelUndoManager()
        let sameID = SuiteTrip(name: "Iceland", destination: "upserted", rating: 2)
        sameID.id = original.id
        a.insert(sameID)
        let upserted = SuiteExpedition(name: "Arctic", note: "upserted")
        upserted.stops = [SuiteStop(place: "Svalbard")]
        a.insert(upserted)
        try a.save()
        func expeditions() throws -> [String] {
            try ModelContext(container).fetch(FetchDescriptor<SuiteExpedition>()).map {
                "\($0.name) \($0.note) \($0.stops.map(\.place).sorted())"
            }
        }
        #expect(try stored(container) == ["Iceland upserted 2"])
        #expect(try expeditions() == ["Arctic upserted [\"Svalbard\"]"])
        a.undoManager?.undo()
        try a.save()
        #expect(try stored(container) == ["Iceland stored 1"])
        #expect(try expeditions() == ["Arctic stored [\"Tromsø\"]"])
        #expect(a.undoManager?.canRedo == true)
        a.undoManager?.redo()
        try a.save()
        #expect(try stored(container) == ["Iceland upserted 2"])
        #expect(try expeditions() == ["Arctic upserted [\"Svalbard\"]"])
    }

    /// D: a fetch gives a model without unsaved changes the stored values, also when the context
    /// has unsaved changes to another model; the changed model keeps its changes.
    @Test(arguments: Backend.allCases)
    func aFetchRefreshesCleanModelsWhileOthersHaveUnsavedChanges(backend: Backend) throws {
        let container = try makeContainer(backend)
        try seed(container, SuiteTrip(name: "Chile", rating: 1), SuiteTrip(name: "Iceland", rating: 1))
        let a = ModelContext(container)
        let b = ModelContext(container)
        let mine = try a.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
        let theirs = try b.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
        mine[0].destination = "Santiago"   // unsaved
        theirs[0].rating = 8
        theirs[1].rating = 9
        try b.save()
        let fetched = try a.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.rating == 9 }))
        #expect(fetched.map(\.name) == ["Iceland"])
        #expect(mine[1].rating == 9, "a clean model takes the stored values")
        #expect(mine[0].destination == "Santiago" && mine[0].rating == 1, "a changed model keeps its values")
        try a.save()
        #expect(try stored(container) == ["Chile Santiago 8", "Iceland Nowhere 9"])
    }
}
