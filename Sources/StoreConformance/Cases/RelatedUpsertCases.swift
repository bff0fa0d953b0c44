import Foundation
import StoreProtocol

/// Unique-constraint upserts where the stored model has related models, or where the context
/// holds the stored model: SwiftData updates the stored model, so must every backend. The stored
/// model takes the inserted values, relationships included; its former related models stay
/// stored and no longer name it; the instance a context holds stays tracked and shows the new
/// values (found by a relationship acceptance program: both were refused).
enum RelatedUpsertCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "upserts", name: "aCollisionWithAStoredModelWithRelatedModelsUpdatesItRelationshipsIncluded",
                        requires: .updates) { target in
            let container = try target.makeContainer()
            let stored = try RelatedUpsertCases.saveExpedition("Iceland", note: "old", stops: ["Geysir", "Glacier"], into: container)
            let transactions = target.capabilities.contains(.history) ? try history(container).count : 0

            let context = ModelContext(container)
            let incoming = SuiteExpedition(name: "Iceland", note: "new")
            incoming.stops = [SuiteStop(place: "Lagoon")]
            context.insert(incoming)
            try context.save()

            let fresh = ModelContext(container)
            let expeditions = try fresh.fetch(FetchDescriptor<SuiteExpedition>())
            try checkEqual(expeditions.map(\.id), [stored.id], "expeditions after the colliding insert (the stored one, updated)")
            try checkEqual(expeditions.map(\.note), ["new"], "the stored expedition took the inserted values")
            try checkEqual(expeditions.first?.stops.map(\.place), ["Lagoon"], "the stored expedition took the inserted stops")
            let stops = try fresh.fetch(FetchDescriptor<SuiteStop>(sortBy: [SortDescriptor(\.place)]))
            try checkEqual(stops.map(\.place), ["Geysir", "Glacier", "Lagoon"], "every stop is stored")
            try checkEqual(stops.map { $0.expedition?.id }, [nil, nil, stored.id],
                           "the former stops no longer name the expedition; the new one does")
            try check(!context.hasChanges, "nothing pending after the upsert")
            if target.capabilities.contains(.history) {
                let last = try history(container)
                try checkEqual(last.count, transactions + 1, "one transaction for the upsert")
                try checkEqual(last.last.map(kinds)?.sorted(), ["insert SuiteStop", "update SuiteExpedition", "update SuiteStop", "update SuiteStop"],
                               "the upsert's changes: the expedition updated, the new stop inserted, the former stops updated")
            }
        },
        ConformanceCase(area: "upserts", name: "aCollisionWithAHeldModelUpdatesTheInstanceTheContextHolds", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland", "Japan"], into: container)
            // The import case: the app's context holds the trips while new ones arrive.
            let context = ModelContext(container)
            let held = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            let arriving = SuiteTrip(name: "Iceland", destination: "Reykjavík", startDate: SuiteTrip.day(0), rating: 9)
            context.insert(arriving)
            try context.save()
            try checkEqual(held[0].destination, "Reykjavík", "the held instance shows the inserted values")
            try checkEqual(held[0].rating, 9, "the held instance's rating")
            try check(!context.hasChanges, "nothing pending after the upsert")
            let refetched = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            try check(refetched.count == 2 && refetched[0] === held[0], "the context still gives the held instance")
            try checkEqual(try storedTripNames(container).sorted(), ["Iceland", "Japan"], "no duplicate was stored")
            // It stays tracked: a later change of it is saved.
            held[0].destination = "Akureyri"
            try context.save()
            let stored = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "Iceland" }))
            try checkEqual(stored.map(\.destination), ["Akureyri"], "a later change of the held instance")
            try checkEqual(stored.map(\.rating), [9], "the upserted rating")
        },
        ConformanceCase(area: "upserts", name: "aCollisionWithAHeldModelWithRelatedModelsMovesItsRelationships", requires: .updates) { target in
            let container = try target.makeContainer()
            try RelatedUpsertCases.saveExpedition("Iceland", note: "old", stops: ["Geysir"], into: container)
            let context = ModelContext(container)
            let held = try require(try context.fetch(FetchDescriptor<SuiteExpedition>()).first, "the expedition")
            let former = try require(held.stops.first, "its stop")
            let incoming = SuiteExpedition(name: "Iceland", note: "imported")
            let stop = SuiteStop(place: "Lagoon")
            stop.expedition = incoming   // set from the stop's side only
            context.insert(incoming)
            context.insert(stop)
            try context.save()
            try checkEqual(held.note, "imported", "the held instance shows the inserted values")
            try check(held.stops.count == 1 && held.stops[0] === stop, "the held instance holds the inserted stops")
            try check(stop.expedition === held, "the new stop names the held instance")
            try check(former.expedition == nil, "the former stop no longer names it")
            let fresh = ModelContext(container)
            let stored = try fresh.fetch(FetchDescriptor<SuiteExpedition>())
            try checkEqual(stored.map(\.note), ["imported"], "one stored expedition, updated")
            try checkEqual(stored.first?.stops.map(\.place), ["Lagoon"], "its stored stops")
            try checkEqual(try fresh.fetchCount(FetchDescriptor<SuiteStop>()), 2, "the former stop is still stored")
        },
        ConformanceCase(area: "upserts", name: "anImportOfCollidingAndNewModelsWithRelatedModelsStoresEachOnce", requires: .updates) { target in
            let container = try target.makeContainer()
            for name in ["A", "B"] { try RelatedUpsertCases.saveExpedition(name, note: "old", stops: ["\(name)1"], into: container) }
            let context = ModelContext(container)
            let held = try require(try context.fetch(FetchDescriptor<SuiteExpedition>(predicate: #Predicate { $0.name == "A" })).first, "A")
            for name in ["A", "B", "C"] {
                let expedition = SuiteExpedition(name: name, note: "imported")
                expedition.stops = [SuiteStop(place: "\(name)2")]
                context.insert(expedition)
            }
            try context.save()
            let fresh = ModelContext(container)
            let stored = try fresh.fetch(FetchDescriptor<SuiteExpedition>(sortBy: [SortDescriptor(\.name)]))
            try checkEqual(stored.map(\.name), ["A", "B", "C"], "each expedition once")
            try checkEqual(stored.map(\.note), ["imported", "imported", "imported"], "each took the imported values")
            try checkEqual(stored.map { $0.stops.map(\.place) }, [["A2"], ["B2"], ["C2"]], "each took the imported stops")
            try checkEqual(held.stops.map(\.place), ["A2"], "the held instance shows its new stops")
        },
        ConformanceCase(area: "upserts", name: "twoInsertsOfTheSameUniqueValuesWithRelatedModelsInOneSaveStoreTheLast",
                        requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let first = SuiteExpedition(name: "Iceland", note: "first")
            first.stops = [SuiteStop(place: "Geysir")]
            let second = SuiteExpedition(name: "Iceland", note: "second")
            second.stops = [SuiteStop(place: "Lagoon")]
            context.insert(first)
            context.insert(second)
            try context.save()
            let fresh = ModelContext(container)
            let stored = try fresh.fetch(FetchDescriptor<SuiteExpedition>())
            try checkEqual(stored.map(\.note), ["second"], "one expedition, with the last inserted values")
            try checkEqual(stored.first?.stops.map(\.place), ["Lagoon"], "its stops are the last inserted ones")
            try checkEqual(try fresh.fetchCount(FetchDescriptor<SuiteStop>()), 2, "both stops are stored")
        },
    ]

    /// Saves an expedition with stops named `stops`, in a context of its own.
    @discardableResult
    static func saveExpedition(_ name: String, note: String, stops: [String], into container: ModelContainer) throws -> SuiteExpedition {
        let context = ModelContext(container)
        let expedition = SuiteExpedition(name: name, note: note)
        expedition.stops = stops.map { SuiteStop(place: $0) }
        context.insert(expedition)
        try context.save()
        return expedition
    }
}
