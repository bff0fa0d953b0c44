import Foundation
import StoreProtocol

/// Inserting, changing, deleting and the context's change tracking.
enum CRUDCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "crud", name: "insertedModelsAreFetchedByAnotherContext") { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland", "Japan"], into: container)
            try checkEqual(try sortedTripNames(container), ["Iceland", "Japan"], "names fetched by a new context")
            try checkEqual(try ModelContext(container).fetchCount(FetchDescriptor<SuiteTrip>()), 2, "fetchCount")
        },
        ConformanceCase(area: "crud", name: "updatesAreSaved", requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let trip = try insertTrips(["Iceland"], into: container)[0]
            let fetched = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try checkEqual(fetched.id, trip.id, "fetched id")
            fetched.destination = "Reykjavík"
            fetched.notes = "window seat"
            try context.save()
            let again = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try checkEqual(again.destination, "Reykjavík", "destination after save")
            try checkEqual(again.notes, "window seat", "notes after save")
        },
        ConformanceCase(area: "crud", name: "settingAnOptionalToNilIsSaved", requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Iceland", notes: "something"))
            try context.save()
            let trip = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            trip.notes = nil
            try checkEqual(context.hasChanges, true, "hasChanges after setting nil")
            try context.save()
            let again = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try checkEqual(again.notes, nil, "notes after saving nil")
        },
        ConformanceCase(area: "crud", name: "deletesAreSaved", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland", "Japan"], into: container)
            let context = ModelContext(container)
            let japan = try require(try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "Japan" })).first, "Japan")
            context.delete(japan)
            try context.save()
            try checkEqual(try sortedTripNames(container), ["Iceland"], "names after delete")
        },
        ConformanceCase(area: "crud", name: "batchDeleteRemovesWhatThePredicateSelects", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B", "C", "D"], into: container)
            let context = ModelContext(container)
            try context.delete(model: SuiteTrip.self, where: #Predicate { $0.rating >= 2 })
            try checkEqual(try sortedTripNames(container), ["A", "B"], "names after batch delete")
        },
        ConformanceCase(area: "crud", name: "insertThenDeleteBeforeSaveIsNoChange") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let trip = SuiteTrip(name: "Ghost")
            context.insert(trip)
            context.delete(trip)
            try checkEqual(context.hasChanges, false, "hasChanges after insert then delete")
            try context.save()
            try checkEqual(try storedTripNames(container), [], "stored trips")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).count, 0, "transactions recorded")
            }
        },
        ConformanceCase(area: "crud", name: "insertThenMutateIsOneInsert") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let trip = SuiteTrip(name: "Iceland")
            context.insert(trip)
            trip.destination = "Reykjavík"
            try context.save()
            let stored = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try checkEqual(stored.destination, "Reykjavík", "stored destination")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).map(kinds), [["insert SuiteTrip"]], "changes recorded")
            }
        },
        ConformanceCase(area: "crud", name: "hasChangesTracksInsertsMutationsAndDeletes", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            let trip = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try checkEqual(context.hasChanges, false, "hasChanges after fetch")
            trip.rating = 5
            try checkEqual(context.hasChanges, true, "hasChanges after mutation")
            try checkEqual(context.changedModelsArray.count, 1, "changedModelsArray count")
            trip.rating = 0
            try checkEqual(context.hasChanges, false, "hasChanges after restoring the value")
            context.delete(trip)
            try checkEqual(context.deletedModelsArray.count, 1, "deletedModelsArray count")
            try context.save()
            try checkEqual(context.hasChanges, false, "hasChanges after save")
        },
        ConformanceCase(area: "crud", name: "rollbackDropsPendingChanges", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland", "Japan"], into: container)
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            trips[0].destination = "Changed"
            context.delete(trips[1])
            context.insert(SuiteTrip(name: "Unsaved"))
            context.rollback()
            try checkEqual(context.hasChanges, false, "hasChanges after rollback")
            try checkEqual(trips[0].destination, "Nowhere", "a changed model's value after rollback")
            try context.save()
            try checkEqual(try sortedTripNames(container), ["Iceland", "Japan"], "stored names")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).count, 1, "transactions (only the setup's)")
            }
        },
        ConformanceCase(area: "crud", name: "deletingAModelTheStoreNoLongerHasIsNoChange", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let first = ModelContext(container), second = ModelContext(container)
            let a = try require(try first.fetch(FetchDescriptor<SuiteTrip>()).first, "trip in first context")
            let b = try require(try second.fetch(FetchDescriptor<SuiteTrip>()).first, "trip in second context")
            first.delete(a)
            try first.save()
            second.delete(b)
            try second.save()
            try checkEqual(try storedTripNames(container), [], "stored trips")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).map(kinds), [["insert SuiteTrip"], ["delete SuiteTrip"]], "transactions")
            }
        },
    ]
}

/// Every attribute kind survives a save and a fetch (and a reopen, when the store persists).
enum TypeCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "types", name: "everyAttributeKindSurvivesReopening", requires: .persistence) { target in
            let configuration = try target.makeConfiguration()
            let original = SuiteAllTypes()
            do {
                let context = ModelContext(try target.open(configuration))
                context.insert(original)
                try context.save()
            }
            let reopened = try target.open(configuration)
            let stored = try require(try ModelContext(reopened).fetch(FetchDescriptor<SuiteAllTypes>()).first, "the stored model")
            try checkEqual(stored.sameValues(as: original), [], "attributes that differ after reopening")
        },
        ConformanceCase(area: "types", name: "everyAttributeKindRoundTripsThroughTheStore") { target in
            let container = try target.makeContainer()
            let original = SuiteAllTypes()
            let context = ModelContext(container)
            context.insert(original)
            try context.save()
            let stored = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteAllTypes>()).first, "the stored model")
            try check(stored !== original, "a new context must decode a new instance")
            try checkEqual(stored.sameValues(as: original), [], "attributes that differ after a fetch")
        },
        // Rollback sets every attribute back on the instance the caller holds, through the
        // model's own key paths: each kind must come back exactly, the instance kept.
        ConformanceCase(area: "types", name: "rollbackRestoresEveryAttributeKindOnTheSameInstance", requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            context.insert(SuiteAllTypes())
            try context.save()
            let reader = ModelContext(container)
            let stored = try require(try reader.fetch(FetchDescriptor<SuiteAllTypes>()).first, "the stored model")
            let pristine = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteAllTypes>()).first, "a copy")
            stored.string = "changed"; stored.int = 1; stored.int8 = 1; stored.int16 = 1; stored.int32 = 1
            stored.int64 = 1; stored.uint = 1; stored.uint8 = 1; stored.uint16 = 1; stored.uint32 = 1; stored.uint64 = 1
            stored.double = 1; stored.float = 1; stored.bool = false; stored.date = Date(timeIntervalSince1970: 1)
            stored.uuid = UUID(); stored.data = Data(); stored.url = URL(string: "https://changed.example")!
            stored.decimal = 1; stored.optionalString = nil; stored.optionalInt = 7; stored.ints = []
            stored.strings = ["x"]; stored.address.geo = []; stored.mood = .calm; stored.priority = .low
            try checkEqual(stored.sameValues(as: pristine).count, 26, "attributes changed before the rollback")
            reader.rollback()
            try checkEqual(stored.sameValues(as: pristine), [], "attributes that differ after a rollback")
            try check(try reader.fetch(FetchDescriptor<SuiteAllTypes>()).first === stored, "the instance after a rollback")
            try checkEqual(reader.hasChanges, false, "hasChanges after a rollback")
        },
        ConformanceCase(area: "types", name: "nilOptionalsAndEmptyValuesRoundTrip") { target in
            let container = try target.makeContainer()
            let original = SuiteAllTypes()
            original.optionalString = nil
            original.optionalInt = nil
            original.string = ""
            original.ints = []
            original.data = Data()
            original.int64 = .max
            original.double = -0.000_001
            original.date = Date(timeIntervalSince1970: -1_000_000_000)
            let context = ModelContext(container)
            context.insert(original)
            try context.save()
            let stored = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteAllTypes>()).first, "the stored model")
            try checkEqual(stored.sameValues(as: original), [], "attributes that differ after a fetch")
        },
        ConformanceCase(area: "types", name: "unchangedFetchedModelsAreNotDirty") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            context.insert(SuiteAllTypes())
            try context.save()
            let reader = ModelContext(container)
            _ = try reader.fetch(FetchDescriptor<SuiteAllTypes>())
            try checkEqual(reader.hasChanges, false, "hasChanges right after fetching every attribute kind")
        },
    ]
}
