import Foundation
import StoreProtocol

/// Predicates, sorts, offsets, limits, counts, pending changes and enumeration.
enum FetchCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "fetching", name: "predicateSelects") { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B", "C", "D"], into: container)
            let context = ModelContext(container)
            let names = try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.rating > 0 && $0.name != "C" })).map(\.name).sorted()
            try checkEqual(names, ["B", "D"], "names selected by the predicate")
            let none = try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "Z" }))
            try checkEqual(none.count, 0, "models selected by a predicate that matches nothing")
        },
        ConformanceCase(area: "fetching", name: "predicateOnOptionalAndString") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Reykjavík", startDate: SuiteTrip.day(1), notes: "north"))
            context.insert(SuiteTrip(name: "Rome", startDate: SuiteTrip.day(2)))
            context.insert(SuiteTrip(name: "Oslo", startDate: SuiteTrip.day(3)))
            try context.save()
            let reader = ModelContext(container)
            let noNotes = try reader.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.notes == nil })).map(\.name).sorted()
            try checkEqual(noNotes, ["Oslo", "Rome"], "trips without notes")
            let startsWithR = try reader.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name.starts(with: "R") })).map(\.name).sorted()
            try checkEqual(startsWithR, ["Reykjavík", "Rome"], "trips whose name starts with R")
        },
        ConformanceCase(area: "fetching", name: "sortAscendingAndDescending") { target in
            let container = try target.makeContainer()
            try insertTrips(["B", "D", "A", "C"], into: container)
            let context = ModelContext(container)
            try checkEqual(try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)])).map(\.name),
                           ["A", "B", "C", "D"], "ascending by name")
            try checkEqual(try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name, order: .reverse)])).map(\.name),
                           ["D", "C", "B", "A"], "descending by name")
            try checkEqual(try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])).map(\.name),
                           ["C", "A", "D", "B"], "descending by start date")
        },
        ConformanceCase(area: "fetching", name: "sortByTwoKeys") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            for (index, (name, rating)) in [("b", 1), ("a", 2), ("c", 1), ("d", 2)].enumerated() {
                context.insert(SuiteTrip(name: name, startDate: SuiteTrip.day(index), rating: rating))
            }
            try context.save()
            let sorted = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(
                sortBy: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.name)])).map(\.name)
            try checkEqual(sorted, ["a", "d", "b", "c"], "by rating descending, then name")
        },
        ConformanceCase(area: "fetching", name: "offsetAndLimit") { target in
            let container = try target.makeContainer()
            try insertTrips((0..<10).map { "T\($0)" }, into: container)
            var descriptor = FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.rating)])
            descriptor.fetchOffset = 3
            descriptor.fetchLimit = 4
            let context = ModelContext(container)
            try checkEqual(try context.fetch(descriptor).map(\.rating), [3, 4, 5, 6], "ratings of offset 3 limit 4")
            descriptor.fetchOffset = 8
            try checkEqual(try context.fetch(descriptor).map(\.rating), [8, 9], "ratings of offset 8 limit 4")
            descriptor.fetchOffset = 20
            try checkEqual(try context.fetch(descriptor).count, 0, "models past the end")
            descriptor.fetchOffset = nil
            descriptor.fetchLimit = 0
            try checkEqual(try context.fetch(descriptor).count, 0, "models with limit 0")
        },
        ConformanceCase(area: "fetching", name: "fetchCountAndIdentifiersAgreeWithFetch") { target in
            let container = try target.makeContainer()
            let trips = try insertTrips(["A", "B", "C", "D"], into: container)
            let context = ModelContext(container)
            let descriptor = FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.rating < 3 }, sortBy: [SortDescriptor(\.name)])
            try checkEqual(try context.fetchCount(descriptor), 3, "fetchCount")
            try checkEqual(try context.fetchIdentifiers(descriptor), trips.prefix(3).map(\.persistentModelID), "fetchIdentifiers")
            var limited = descriptor
            limited.fetchLimit = 2
            try checkEqual(try context.fetchCount(limited), 2, "fetchCount with a limit")
        },
        ConformanceCase(area: "fetching", name: "pendingInsertsAreFetchedUnlessExcluded") { target in
            let container = try target.makeContainer()
            try insertTrips(["Saved"], into: container)
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Unsaved", startDate: SuiteTrip.day(9)))
            let all = FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)])
            try checkEqual(try context.fetch(all).map(\.name), ["Saved", "Unsaved"], "names including pending changes")
            try checkEqual(try context.fetchCount(all), 2, "fetchCount including pending changes")
            var savedOnly = all
            savedOnly.includePendingChanges = false
            try checkEqual(try context.fetch(savedOnly).map(\.name), ["Saved"], "names without pending changes")
        },
        ConformanceCase(area: "fetching", name: "pendingMutationsAndDeletesCount", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B", "C"], into: container)
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            trips[0].rating = 100
            context.delete(trips[1])
            let high = try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.rating >= 2 })).map(\.name).sorted()
            try checkEqual(high, ["A", "C"], "names with rating >= 2 counting unsaved changes")
            try check(try context.fetch(FetchDescriptor<SuiteTrip>()).allSatisfy { $0.name != "B" }, "a pending delete must hide the model")
        },
        ConformanceCase(area: "fetching", name: "enumerateVisitsEveryModelInBatches") { target in
            let container = try target.makeContainer()
            try insertTrips((0..<25).map { "T\($0)" }, into: container)
            let context = ModelContext(container)
            var ratings: [Int] = []
            try context.enumerate(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.rating)]), batchSize: 7) { ratings.append($0.rating) }
            try checkEqual(ratings, Array(0..<25), "ratings visited")
            var limited = FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.rating)])
            limited.fetchLimit = 10
            var count = 0
            try context.enumerate(limited, batchSize: 4) { _ in count += 1 }
            try checkEqual(count, 10, "models visited with fetchLimit 10")
        },
        ConformanceCase(area: "fetching", name: "enumerateRefusesEscapingMutations") { target in
            let container = try target.makeContainer()
            try insertTrips((0..<6).map { "T\($0)" }, into: container)
            let context = ModelContext(container)
            try checkThrows(ModelContextError(.mutationDuringEnumeration, ""), "inserting during enumerate") {
                try context.enumerate(FetchDescriptor<SuiteTrip>(), batchSize: 2) { trip in
                    context.insert(SuiteTrip(name: "new " + trip.name, startDate: SuiteTrip.day(50)))
                }
            }
            context.rollback()
            var visited = 0
            try context.enumerate(FetchDescriptor<SuiteTrip>(), batchSize: 2, allowEscapingMutations: true) { trip in
                visited += 1
                context.insert(SuiteTrip(name: "copy " + trip.name, startDate: SuiteTrip.day(60)))
            }
            try checkEqual(visited, 6, "models visited with allowEscapingMutations")
        },
    ]
}

/// One instance per identifier, and identifiers themselves.
enum IdentityCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "identity", name: "fetchingTwiceGivesTheSameInstance") { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            let first = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "first fetch")
            let second = try require(try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "Iceland" })).first, "second fetch")
            try check(first === second, "two fetches of one model must return one instance")
            try check(first == second && first.hashValue == second.hashValue, "models are equal and hash alike by identity")
        },
        ConformanceCase(area: "identity", name: "insertedInstanceStaysRegisteredAfterSave") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let trip = SuiteTrip(name: "Iceland")
            context.insert(trip)
            try context.save()
            let fetched = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try check(fetched === trip, "the saving context must return the instance it inserted")
        },
        ConformanceCase(area: "identity", name: "modelForIdentifier") { target in
            let container = try target.makeContainer()
            let trip = try insertTrips(["Iceland", "Japan"], into: container)[1]
            let context = ModelContext(container)
            let found = try require(try context.model(for: trip.persistentModelID) as? SuiteTrip, "model(for:)")
            try checkEqual(found.name, "Japan", "name of the model found by identifier")
            let registered: SuiteTrip? = context.registeredModel(for: trip.persistentModelID)
            try check(registered === found, "registeredModel(for:) must return the instance model(for:) registered")
            let missing = PersistentIdentifier(entityName: "SuiteTrip", primaryKey: .uuid(UUID()))
            try check(try context.model(for: missing) == nil, "model(for:) of an unknown id must be nil")
        },
        ConformanceCase(area: "identity", name: "persistentIdentifierIsCodableAndStable") { target in
            let container = try target.makeContainer()
            let trip = try insertTrips(["Iceland"], into: container)[0]
            let fetched = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try checkEqual(fetched.persistentModelID, trip.persistentModelID, "identifier of the fetched copy")
            let data = try JSONEncoder().encode(trip.persistentModelID)
            try checkEqual(try JSONDecoder().decode(PersistentIdentifier.self, from: data), trip.persistentModelID, "decoded identifier")
        },
        ConformanceCase(area: "identity", name: "refetchShowsAnotherContextsSave", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let reader = ModelContext(container), writer = ModelContext(container)
            let mine = try require(try reader.fetch(FetchDescriptor<SuiteTrip>()).first, "reader's trip")
            let theirs = try require(try writer.fetch(FetchDescriptor<SuiteTrip>()).first, "writer's trip")
            theirs.destination = "Akureyri"
            try writer.save()
            let again = try require(try reader.fetch(FetchDescriptor<SuiteTrip>()).first, "reader's trip again")
            try check(again === mine, "refetching must keep the instance")
            try checkEqual(mine.destination, "Akureyri", "the unchanged instance takes the stored value")
            try checkEqual(reader.hasChanges, false, "hasChanges after refresh")
        },
    ]
}
