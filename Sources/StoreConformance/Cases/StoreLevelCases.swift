import Foundation
import StoreProtocol

/// The store's own answers, without a context in between to filter, sort or page again: a store
/// that answers a fetch must answer it exactly (or throw `preferInMemoryFilter` /
/// `preferInMemorySort` and let the context do it).
enum StoreLevelCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "store", name: "aStoreAnswersOffsetLimitAndSortExactly") { target in
            let container = try target.makeContainer()
            try insertTrips((0..<10).map { "trip \($0)" }, into: container)
            let store = try require(container.stores.first, "the store")
            func ratings(_ descriptor: FetchDescriptor<SuiteTrip>) throws -> [Int]? {
                func run<S: DataStore>(_ store: S) throws -> [Int]? {
                    do {
                        let result = try store.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: EditingState()))
                        return try result.fetchedSnapshots.map { (try SnapshotQuery.materialize($0) as SuiteTrip).rating }
                    } catch let error as DataStoreError where error.code == .preferInMemoryFilter || error.code == .preferInMemorySort {
                        return nil   // the context does it: allowed
                    }
                }
                return try run(store)
            }
            var sorted = FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.rating, order: .reverse)])
            sorted.fetchOffset = 2
            sorted.fetchLimit = 3
            if let page = try ratings(sorted) { try checkEqual(page, [7, 6, 5], "ratings of a sorted page") }
            var unsorted = FetchDescriptor<SuiteTrip>()
            unsorted.fetchOffset = 8
            unsorted.fetchLimit = 5
            if let page = try ratings(unsorted) { try checkEqual(page.count, 2, "rows of an unsorted page past the end") }
            let id = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).first?.id, "an id")
            var byID = FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.id == id })
            byID.fetchOffset = 1
            if let page = try ratings(byID) { try checkEqual(page, [], "rows of the one-row page after offset 1") }
        },
        ConformanceCase(area: "store", name: "aStoreCountsAndListsIdentifiersOfAPage") { target in
            let container = try target.makeContainer()
            try insertTrips((0..<10).map { "trip \($0)" }, into: container)
            let store = try require(container.stores.first, "the store")
            func counts(_ descriptor: FetchDescriptor<SuiteTrip>) throws -> (count: Int, identifiers: Int) {
                func run<S: DataStore>(_ store: S) throws -> (Int, Int) {
                    let request = DataStoreFetchRequest(descriptor: descriptor, editingState: EditingState())
                    return try (store.fetchCount(request), store.fetchIdentifiers(request).count)
                }
                return try run(store)
            }
            var limited = FetchDescriptor<SuiteTrip>()
            limited.fetchLimit = 3
            try checkEqual(try counts(limited).count, 3, "fetchCount with fetchLimit 3")
            try checkEqual(try counts(limited).identifiers, 3, "fetchIdentifiers with fetchLimit 3")
            var offset = FetchDescriptor<SuiteTrip>()
            offset.fetchOffset = 8
            try checkEqual(try counts(offset).count, 2, "fetchCount with fetchOffset 8")
            try checkEqual(try counts(offset).identifiers, 2, "fetchIdentifiers with fetchOffset 8")
        },
        ConformanceCase(area: "fetching", name: "sortTiesAreBrokenByTheNextDescriptor") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            for (name, rating) in [("b", 1), ("d", 2), ("a", 1), ("c", 2)] {
                context.insert(SuiteTrip(name: name, startDate: SuiteTrip.day(rating), rating: rating))
            }
            try context.save()
            let sorted = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(
                sortBy: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.name)]))
            try checkEqual(sorted.map(\.name), ["c", "d", "a", "b"], "names sorted by rating (descending), then name")
        },
        ConformanceCase(area: "fetching", name: "countsAndIdentifiersIncludePendingChanges", requires: .updates) { target in
            let container = try target.makeContainer()
            let stored = try insertTrips(["A", "B"], into: container)
            let context = ModelContext(container)
            let pending = SuiteTrip(name: "C", startDate: SuiteTrip.day(5))
            context.insert(pending)
            context.delete(try require(try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "A" })).first, "A"))
            let descriptor = FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)])
            try checkEqual(try context.fetchIdentifiers(descriptor), [stored[1].persistentModelID, pending.persistentModelID],
                           "fetchIdentifiers with a pending insert and delete")
            try checkEqual(try context.fetchCount(descriptor), 2, "fetchCount with a pending insert and delete")
        },
        ConformanceCase(area: "fetching", name: "aPredicateOnAnotherUUIDAttributeIsNotAnIDLookup") { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let model = SuiteAllTypes()
            context.insert(model)
            context.insert(SuiteAllTypes())
            try context.save()
            let uuid = model.uuid
            let found = try ModelContext(container).fetch(FetchDescriptor<SuiteAllTypes>(predicate: #Predicate { $0.uuid == uuid }))
            try checkEqual(found.map(\.id), [model.id], "models whose uuid attribute (not their id) matches")
        },
        ConformanceCase(area: "fetching", name: "aPredicateThatFailsIsAnErrorNotAnEmptyResult") { target in
            let container = try target.makeContainer()
            try insertTrips(["no notes"], into: container)   // notes is nil: unwrapping it fails
            try checkThrows(DataStoreError(.invalidPredicate, ""), "fetching with a predicate that cannot be evaluated") {
                _ = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.notes! == "x" }))
            }
        },
    ]
}
