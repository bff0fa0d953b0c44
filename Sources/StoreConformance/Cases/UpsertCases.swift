import Foundation
import StoreProtocol

/// Inserts that become updates (a stored `id`, a unique collision), unique values freed by
/// changes and deletes, and saves that touch one row twice and then fail.
enum UpsertCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "upserts", name: "anInsertWithAStoredIDUpdatesThatModel", requires: .updates) { target in
            let container = try target.makeContainer()
            let stored = try insertTrips(["Iceland"], into: container)[0]
            let context = ModelContext(container)
            // Nothing unique collides: only the id says it is the same model.
            let again = SuiteTrip(name: "Iceland again", destination: "Reykjavík", startDate: SuiteTrip.day(30), rating: 5)
            again.id = stored.id
            context.insert(again)
            try context.save()
            let trips = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>())
            try checkEqual(trips.map(\.id), [stored.id], "ids stored after inserting a model with a stored id")
            try checkEqual(trips.map(\.name), ["Iceland again"], "names after the insert that became an update")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).last.map(kinds), ["update SuiteTrip"], "the save's changes")
            }
        },
        ConformanceCase(area: "upserts", name: "anUpdateOfAModelDeletedMeanwhileIsSkipped", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let stale = ModelContext(container)
            let trip = try require(try stale.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            let other = ModelContext(container)
            other.delete(try require(try other.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip, in another context"))
            try other.save()
            let transactions = target.capabilities.contains(.history) ? try history(container).count : 0
            trip.destination = "Reykjavík"
            try stale.save()
            try checkEqual(try storedTripNames(container), [], "trips after updating one that another context deleted")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).count, transactions, "transactions: the skipped update records none")
            }
        },
        ConformanceCase(area: "upserts", name: "aFailedSaveThatTouchedARowTwiceRestoresIt", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B", "C"], into: container)
            let before = try tripState(container)
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            // B is changed twice in one save: by an insert that collides with it, then as itself.
            context.insert(SuiteTrip(name: "B", destination: "first", startDate: SuiteTrip.day(1), rating: 7))
            trips[1].destination = "second"
            // Then C collides with A, and the whole save fails.
            trips[2].name = "A"
            trips[2].startDate = SuiteTrip.day(0)
            try checkThrows(DataStoreError(.constraintViolation, ""), "a save whose last change breaks a unique constraint") {
                try context.save()
            }
            try checkEqual(try tripState(container), before, "stored trips after the failed save")
        },
        ConformanceCase(area: "upserts", name: "uniqueValuesAreFreedByChangesAndDeletes", requires: .updates) { target in
            let container = try target.makeContainer()
            let original = try insertTrips(["A", "B"], into: container)
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            trips[0].name = "A2"          // frees (A, day 0), takes (A2, day 0)
            context.delete(trips[1])      // frees (B, day 1)
            try context.save()

            let inserting = ModelContext(container)
            let newA = SuiteTrip(name: "A", startDate: SuiteTrip.day(0))
            let newB = SuiteTrip(name: "B", startDate: SuiteTrip.day(1))
            let sameAsA2 = SuiteTrip(name: "A2", destination: "collides", startDate: SuiteTrip.day(0))
            for trip in [newA, newB, sameAsA2] { inserting.insert(trip) }
            try inserting.save()
            let stored = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            try checkEqual(stored.map(\.name), ["A", "A2", "B"], "names after reusing freed unique values")
            try checkEqual(stored.map(\.id), [newA.id, original[0].id, newB.id],
                           "ids: freed values make new models; (A2, day 0) still belongs to the first trip")
            try checkEqual(stored[1].destination, "collides", "the colliding insert updated the stored A2")
        },
        // Found by an adversarial tester: the insert was merged into the deleted (or renamed)
        // row, so one save acknowledged a model it did not store, and the instance took a
        // deleted row's identity, losing every later change.
        ConformanceCase(area: "upserts", name: "aDeleteAndAnInsertOfItsUniqueValuesInOneSaveStoreTheInsert", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Groceries"], into: container)
            let context = ModelContext(container)
            let old = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            context.delete(old)
            let new = SuiteTrip(name: "Groceries", destination: "milk", startDate: SuiteTrip.day(0))
            context.insert(new)
            try context.save()
            let stored = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>())
            try checkEqual(stored.map(\.id), [new.id], "ids after deleting a trip and inserting one with its unique values")
            try checkEqual(stored.map(\.destination), ["milk"], "the inserted trip's values")
            new.destination = "milk, eggs"
            try context.save()
            try checkEqual(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).map(\.destination), ["milk, eggs"],
                           "a later change of the inserted trip")
        },
        ConformanceCase(area: "upserts", name: "aRenameAndAnInsertOfTheFreedValuesInOneSaveStoreBoth", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Groceries"], into: container)
            let context = ModelContext(container)
            let old = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            old.name = "Groceries (archived)"
            let new = SuiteTrip(name: "Groceries", destination: "new", startDate: SuiteTrip.day(0))
            context.insert(new)
            try context.save()
            try checkEqual(new.id == old.id, false, "the inserted trip keeps its own identity")
            let stored = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            try checkEqual(stored.map(\.name), ["Groceries", "Groceries (archived)"], "names after the rename and the insert")
            try checkEqual(stored.map(\.id), [new.id, old.id], "ids after the rename and the insert")
            old.destination = "old, edited"
            new.destination = "new, edited"
            try context.save()
            try checkEqual(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)])).map(\.destination),
                           ["new, edited", "old, edited"], "later changes of both")
        },
        ConformanceCase(area: "upserts", name: "anUpdateToWhatIsAlreadyStoredRecordsNothing", requires: [.updates, .history]) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let stale = ModelContext(container)
            let mine = try require(try stale.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            let other = ModelContext(container)
            try require(try other.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip, in another context").destination = "Reykjavík"
            try other.save()
            let transactions = try history(container).count
            mine.destination = "Reykjavík"   // a change for this context, none for the store
            try stale.save()
            try checkEqual(try history(container).count, transactions, "transactions after saving the value already stored")
        },
        ConformanceCase(area: "upserts", name: "aSavedUpdateLeavesNothingPending", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            let trip = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            trip.destination = "Reykjavík"
            try context.save()
            try checkEqual(context.hasChanges, false, "hasChanges after saving an update")
            try checkEqual(context.changedModelsArray.count, 0, "changed models after saving an update")
        },
        ConformanceCase(area: "upserts", name: "deletingAnotherContextsInstanceDeletesTheModel", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland", "Japan"], into: container)
            let fetched = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "Japan" }))
            let context = ModelContext(container)   // never saw this instance
            context.delete(try require(fetched.first, "Japan, fetched by another context"))
            try checkEqual(context.hasChanges, true, "hasChanges after deleting an instance of another context")
            try context.save()
            try checkEqual(try sortedTripNames(container), ["Iceland"], "names after the delete")
        },
        ConformanceCase(area: "upserts", name: "nilNeverCollidesOnAUniqueConstraint", requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            for member in [SuiteMember(name: "no email 1"), SuiteMember(name: "no email 2"), SuiteMember(name: "ann", email: "ann@example.com")] {
                context.insert(member)
            }
            try context.save()
            let again = ModelContext(container)
            again.insert(SuiteMember(name: "no email 3"))
            again.insert(SuiteMember(name: "ann again", email: "ann@example.com"))
            try again.save()
            let names = try ModelContext(container).fetch(FetchDescriptor<SuiteMember>()).map(\.name).sorted()
            try checkEqual(names, ["ann again", "no email 1", "no email 2", "no email 3"],
                           "members: nil emails never collide, a repeated email updates")
        },
    ]
}
