import Foundation
import StoreProtocol

/// One transaction per save, with its author, changes, updated attributes and tombstones.
enum HistoryCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "history", name: "eachSaveRecordsOneTransactionAndAnEmptySaveNone", requires: .history) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "A"))
            context.insert(SuiteTrip(name: "B", startDate: SuiteTrip.day(1)))
            try context.save()
            try context.save()
            context.insert(SuiteTrip(name: "C", startDate: SuiteTrip.day(2)))
            try context.save()
            try checkEqual(try history(container).map(kinds), [["insert SuiteTrip", "insert SuiteTrip"], ["insert SuiteTrip"]],
                           "changes of each transaction")
        },
        ConformanceCase(area: "history", name: "transactionsCarryAuthorTimeStoreAndProcess", requires: .history) { target in
            let container = try target.makeContainer()
            let before = Date().addingTimeInterval(-1)
            try insertTrips(["A"], into: container, author: "widget")
            try insertTrips(["B"], into: container)
            let after = Date().addingTimeInterval(1)
            let transactions = try history(container)
            try checkEqual(transactions.map(\.author), ["widget", nil], "authors")
            try checkEqual(transactions.map(\.storeIdentifier), Array(repeating: container.stores[0].identifier, count: 2), "store identifiers")
            try check(transactions.allSatisfy { $0.timestamp >= before && $0.timestamp <= after },
                      "timestamps must lie within the test's run, saw \(transactions.map(\.timestamp))")
            try check(transactions.allSatisfy { !$0.processIdentifier.isEmpty && !$0.bundleIdentifier.isEmpty },
                      "transactions must name the saving process")
            try check(transactions[0].transactionIdentifier < transactions[1].transactionIdentifier, "transaction identifiers must increase")
        },
        ConformanceCase(area: "history", name: "changesKeepTheOrderTheyWereMade", requires: .history) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let trips = ["C", "A", "B"].enumerated().map { SuiteTrip(name: $1, startDate: SuiteTrip.day($0)) }
            for trip in trips { context.insert(trip) }
            try context.save()
            let changes = try require(try history(container).first, "the transaction").changes
            try checkEqual(changes.map(\.changedPersistentIdentifier), trips.map(\.persistentModelID), "changed identifiers in order")
        },
        ConformanceCase(area: "history", name: "deletesKeepTheOrderTheyWereMade", requires: [.history, .updates]) { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B", "C"], into: container)
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            for trip in [trips[2], trips[0], trips[1]] { context.delete(trip) }   // C, A, B
            try context.save()
            let changes = try require(try history(container).last, "the transaction").changes
            try checkEqual(changes.map(\.changedPersistentIdentifier), [trips[2], trips[0], trips[1]].map(\.persistentModelID),
                           "deleted identifiers in the order of the deletes")
        },
        ConformanceCase(area: "history", name: "updatesListExactlyTheChangedAttributes", requires: [.history, .updates]) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            let trip = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            trip.destination = "Reykjavík"
            trip.notes = "aisle"
            trip.rating = trip.rating   // assigning the same value is no change
            try context.save()
            let last = try require(try history(container).last, "the update's transaction")
            guard case .update(let update as DefaultHistoryUpdate<SuiteTrip>)? = last.changes.first, last.changes.count == 1 else {
                throw ConformanceFailure("expected one DefaultHistoryUpdate<SuiteTrip>, saw \(last.changes)")
            }
            try checkEqual(update.updatedAttributes.count, 2, "number of updated attributes")
            try check(update.updatedAttributes.contains { $0 == \SuiteTrip.destination }, "updatedAttributes must contain \\.destination")
            try check(update.updatedAttributes.contains { $0 == \SuiteTrip.notes }, "updatedAttributes must contain \\.notes")
            try checkEqual(update.changedPersistentIdentifier, trip.persistentModelID, "updated identifier")
        },
        ConformanceCase(area: "history", name: "tombstonesHoldPreservedAttributesOnly", requires: [.history, .updates]) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            context.delete(try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip"))
            try context.save()
            let last = try require(try history(container).last, "the delete's transaction")
            guard case .delete(let delete as DefaultHistoryDelete<SuiteTrip>)? = last.changes.first else {
                throw ConformanceFailure("expected a DefaultHistoryDelete<SuiteTrip>, saw \(last.changes)")
            }
            try checkEqual(delete.tombstone[\.name], "Iceland", "tombstone name")
            try checkEqual(delete.tombstone[\.startDate], SuiteTrip.day(0), "tombstone start date")
            try checkEqual(delete.tombstone[\.destination], nil, "tombstone destination (not preserved)")
            try checkEqual(Set(delete.tombstone.map(\.attributeName)), ["name", "startDate"], "attributes iterated from the tombstone")
            try check(delete.tombstone.contains { $0.keyPath == \SuiteTrip.name }, "the tombstone's key paths must equal the literals")
        },
        ConformanceCase(area: "history", name: "batchDeleteRecordsOneTransactionWithTombstones", requires: [.history, .updates]) { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B", "C"], into: container)
            try ModelContext(container).delete(model: SuiteTrip.self, where: #Predicate { $0.rating > 0 })
            let last = try require(try history(container).last, "the batch delete's transaction")
            try checkEqual(kinds(last), ["delete SuiteTrip", "delete SuiteTrip"], "changes of the batch delete")
            let names = last.changes.compactMap { change -> String? in
                guard case .delete(let delete as DefaultHistoryDelete<SuiteTrip>) = change else { return nil }
                return delete.tombstone[\.name]
            }
            try checkEqual(names.sorted(), ["B", "C"], "tombstone names")
        },
        ConformanceCase(area: "history", name: "predicateSortAndLimit", requires: .history) { target in
            let container = try target.makeContainer()
            for (index, author) in ["app", "widget", "app", "widget"].enumerated() {
                try insertTrips(["T\(index)"], into: container, author: author)
            }
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
            descriptor.predicate = #Predicate { $0.author == "widget" }
            let widget = try container.fetchHistory(descriptor)
            try checkEqual(widget.map(\.author), ["widget", "widget"], "authors selected by the predicate")
            descriptor.predicate = nil
            descriptor.sortBy = [SortDescriptor(\.transactionIdentifier, order: .reverse)]
            descriptor.fetchLimit = 2
            let newest = try container.fetchHistory(descriptor)
            let all = try history(container)
            try checkEqual(newest.map(\.transactionIdentifier), all.suffix(2).reversed().map(\.transactionIdentifier),
                           "the two newest, newest first")
        },
    ]
}

/// Tokens: ordering, resuming, Codable, expiry and foreign tokens.
enum TokenCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "tokens", name: "tokensStrictlyIncrease", requires: .history) { target in
            let container = try target.makeContainer()
            for index in 0..<5 { try insertTrips(["T\(index)"], into: container) }
            let tokens = try history(container).map(\.token)
            try checkEqual(tokens.count, 5, "transactions")
            for (earlier, later) in zip(tokens, tokens.dropFirst()) {
                try check(earlier < later && !(later < earlier), "token \(earlier) must be before \(later)")
            }
        },
        ConformanceCase(area: "tokens", name: "afterATokenComesExactlyWhatWasSavedLater", requires: .history) { target in
            let container = try target.makeContainer()
            try insertTrips(["A"], into: container)
            let token = try require(try history(container).last?.token, "first token")
            try checkEqual(try history(container, after: token).count, 0, "transactions after the newest token")
            try insertTrips(["B"], into: container)
            try insertTrips(["C"], into: container)
            let later = try history(container, after: token)
            try checkEqual(later.map(kinds), [["insert SuiteTrip"], ["insert SuiteTrip"]], "transactions after the first token")
            var predicate = HistoryDescriptor<DefaultHistoryTransaction>()
            predicate.predicate = #Predicate { $0.token > token }
            try checkEqual(try container.fetchHistory(predicate).map(\.transactionIdentifier), later.map(\.transactionIdentifier),
                           "the same transactions through #Predicate { $0.token > token }")
        },
        ConformanceCase(area: "tokens", name: "tokensAreCodable", requires: .history) { target in
            let container = try target.makeContainer()
            try insertTrips(["A"], into: container)
            let token = try require(try history(container).last?.token, "token")
            let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(token))
            try checkEqual(decoded, token, "decoded token")
            try insertTrips(["B"], into: container)
            try checkEqual(try history(container, after: decoded).count, 1, "transactions after the decoded token")
        },
        ConformanceCase(area: "tokens", name: "aTokenOfAnotherStoreThrows", requires: .history) { target in
            let container = try target.makeContainer()
            try insertTrips(["A"], into: container)
            let foreign = DefaultHistoryToken(storeIdentifier: "not-this-store", transactionNumber: 1)
            try checkThrows(HistoryError(.foreignToken, ""), "fetching after another store's token") {
                _ = try history(container, after: foreign)
            }
            let other = try target.makeContainer()
            try insertTrips(["B"], into: other)
            let otherToken = try require(try history(other).last?.token, "the other store's token")
            try checkThrows(HistoryError(.foreignToken, ""), "fetching after a token of another store of the same backend") {
                _ = try history(container, after: otherToken)
            }
        },
        ConformanceCase(area: "tokens", name: "aTokenAheadOfTheStoreThrows", requires: .history) { target in
            let container = try target.makeContainer()
            try insertTrips(["A"], into: container)
            for position: Int64 in [2, 1_000] {   // one transaction ahead, and far ahead
                let ahead = DefaultHistoryToken(storeIdentifier: container.stores[0].identifier, transactionNumber: position)
                try checkThrows(HistoryError(.foreignToken, ""), "fetching after a token at transaction \(position) of 1") {
                    _ = try history(container, after: ahead)
                }
            }
        },
        ConformanceCase(area: "tokens", name: "deletedHistoryExpiresOlderTokens", requires: [.history, .historyDeletion]) { target in
            let container = try target.makeContainer()
            for index in 0..<4 { try insertTrips(["T\(index)"], into: container) }
            let tokens = try history(container).map(\.token)
            let cut = tokens[2]
            try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= cut }))
            try checkEqual(try history(container).count, 1, "transactions left after deleting three")
            try checkThrows(HistoryError(.historyTokenExpired, ""), "fetching after a token older than deleted history") {
                _ = try history(container, after: tokens[0])
            }
            try checkEqual(try history(container, after: tokens[2]).count, 1, "transactions after the newest deleted one")
            try checkEqual(try storedTripNames(container).count, 4, "deleting history keeps the data")
        },
        ConformanceCase(area: "tokens", name: "currentTokenStartsFromNow", requires: .history) { target in
            let container = try target.makeContainer()
            try insertTrips(["A"], into: container)
            let now = try container.currentHistoryToken()
            try checkEqual(try history(container, after: now).count, 0, "transactions after the current token")
            try insertTrips(["B"], into: container)
            try checkEqual(try history(container, after: now).count, 1, "transactions saved after taking the current token")
        },
    ]
}

/// A container over two stores: routing by type, and one token for both.
enum MultiStoreCases {
    /// Trips in one store of the target's, readings in another.
    static func twoStoreContainer(_ target: ConformanceTarget) throws -> ModelContainer {
        var trips = try target.makeConfiguration()
        trips.schema = Schema([SuiteTrip.self])
        var readings = try target.makeConfiguration()
        readings.schema = Schema([SuiteReading.self])
        return try ModelContainer(for: Schema([SuiteTrip.self, SuiteReading.self]), configurations: [trips, readings])
    }

    static let all: [ConformanceCase] = [
        ConformanceCase(area: "multiStore", name: "eachTypeGoesToItsStore") { target in
            let container = try twoStoreContainer(target)
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Iceland"))
            context.insert(SuiteReading(sensor: "t1", timestamp: SuiteTrip.day(0), value: 1.5))
            try context.save()
            try check(try container.store(for: SuiteTrip.self) !== container.store(for: SuiteReading.self), "the two types must use two stores")
            try checkEqual(try ModelContext(container).fetchCount(FetchDescriptor<SuiteReading>()), 1, "readings")
            try checkEqual(try storedTripNames(container), ["Iceland"], "trips")
        },
        ConformanceCase(area: "multiStore", name: "oneTokenResumesEveryStore", requires: .history) { target in
            let container = try twoStoreContainer(target)
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Iceland"))
            try context.save()
            context.insert(SuiteReading(sensor: "t1", timestamp: SuiteTrip.day(0), value: 1))
            try context.save()
            let first = try history(container)
            try checkEqual(first.count, 2, "transactions across both stores")
            let token = try require(first.last?.token, "token")
            try checkEqual(token.positions.count, 2, "stores the last token holds a position for")
            context.insert(SuiteReading(sensor: "t1", timestamp: SuiteTrip.day(1), value: 2))
            try context.save()
            context.insert(SuiteTrip(name: "Japan", startDate: SuiteTrip.day(1)))
            try context.save()
            let next = try history(container, after: token)
            try checkEqual(next.map(kinds), [["insert SuiteReading"], ["insert SuiteTrip"]], "transactions after the shared token")
            let final = try require(next.last?.token, "final token")
            try checkEqual(try history(container, after: final).count, 0, "transactions after the final token")
        },
    ]
}

/// What survives closing and reopening a store.
enum PersistenceCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "persistence", name: "dataSurvivesReopening", requires: .persistence) { target in
            let configuration = try target.makeConfiguration()
            try insertTrips(["Iceland", "Japan"], into: try target.open(configuration))
            try checkEqual(try sortedTripNames(try target.open(configuration)), ["Iceland", "Japan"], "names after reopening")
        },
        ConformanceCase(area: "persistence", name: "updatesAndDeletesSurviveReopening", requires: [.persistence, .updates]) { target in
            let configuration = try target.makeConfiguration()
            do {
                let container = try target.open(configuration)
                try insertTrips(["A", "B", "C"], into: container)
                let context = ModelContext(container)
                let trips = try context.fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
                trips[0].destination = "Moved"
                context.delete(trips[1])
                try context.save()
            }
            let reopened = try target.open(configuration)
            let trips = try ModelContext(reopened).fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)]))
            try checkEqual(trips.map(\.name), ["A", "C"], "names after reopening")
            try checkEqual(trips.first?.destination, "Moved", "updated destination after reopening")
        },
        ConformanceCase(area: "persistence", name: "historyAndTokensSurviveReopening", requires: [.persistence, .history]) { target in
            let configuration = try target.makeConfiguration()
            let first = try target.open(configuration)
            try insertTrips(["A"], into: first, author: "app")
            let token = try require(try history(first).last?.token, "token before reopening")
            let identifier = first.stores[0].identifier
            let reopened = try target.open(configuration)
            try checkEqual(reopened.stores[0].identifier, identifier, "store identifier after reopening")
            try checkEqual(try history(reopened).map(\.author), ["app"], "authors after reopening")
            try insertTrips(["B"], into: reopened, author: "widget")
            let later = try history(reopened, after: token)
            try checkEqual(later.map(\.author), ["widget"], "transactions after the old token")
            try check(try require(later.first, "new transaction").token > token, "tokens keep increasing across reopening")
        },
    ]
}

/// Many contexts saving at once.
enum ConcurrencyCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "concurrency", name: "manyContextsSaveAtOnceWithoutLoss") { target in
            let container = try target.makeContainer()
            let tasks = 8, savesPerTask = 25
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        let context = ModelContext(container)
                        context.author = "task\(task)"
                        for save in 0..<savesPerTask {
                            context.insert(SuiteTrip(name: "t\(task)-s\(save)", startDate: SuiteTrip.day(save)))
                            try context.save()
                        }
                    }
                }
                try await group.waitForAll()
            }
            try checkEqual(try ModelContext(container).fetchCount(FetchDescriptor<SuiteTrip>()), tasks * savesPerTask, "stored trips")
            guard target.capabilities.contains(.history) else { return }
            let transactions = try history(container)
            try checkEqual(transactions.count, tasks * savesPerTask, "transactions")
            let identifiers = transactions.map(\.transactionIdentifier)
            try check(zip(identifiers, identifiers.dropFirst()).allSatisfy { $0 < $1 }, "transaction identifiers must strictly increase")
            for task in 0..<tasks {
                let author = "task\(task)"
                try checkEqual(transactions.filter { $0.author == author }.count, savesPerTask, "transactions by \(author)")
            }
        },
        ConformanceCase(area: "concurrency", name: "concurrentReadersSeeWholeSaves") { target in
            let container = try target.makeContainer()
            let batch = 10, saves = 20
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let context = ModelContext(container)
                    for save in 0..<saves {
                        for item in 0..<batch { context.insert(SuiteTrip(name: "s\(save)-\(item)")) }
                        try context.save()
                    }
                }
                group.addTask {
                    for _ in 0..<saves {
                        let count = try ModelContext(container).fetchCount(FetchDescriptor<SuiteTrip>())
                        try check(count % batch == 0, "a reader saw \(count) trips: part of a save of \(batch)")
                        await Task.yield()
                    }
                }
                try await group.waitForAll()
            }
        },
    ]
}
