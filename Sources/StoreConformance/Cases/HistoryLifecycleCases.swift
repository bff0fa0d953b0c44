import Foundation
import StoreProtocol

/// History as it is deleted, retained and erased: transaction numbers keep rising, and a token
/// whose history is gone is expired, whether it is passed as `after` or compared in a predicate.
/// Also limits applied after the predicate, and deletes of several entities in one save.
enum HistoryLifecycleCases {
    static let all: [ConformanceCase] = expiry + numbering + limits + erase + retention + batchDeletes

    /// Saves one trip per author, in order; returns the transactions.
    static func saveTrips(_ count: Int, into container: ModelContainer,
                          authors: [String?] = [nil]) throws -> [DefaultHistoryTransaction] {
        let before = try history(container).last?.token
        for index in 0..<count {
            try insertTrips(["T\(index)-\(UUID().uuidString.prefix(8))"], into: container, author: authors[index % authors.count])
        }
        return try history(container, after: before)
    }

    /// All history, through a predicate that compares with `token` (the talk's `findTransactions`).
    static func fetchNewer(_ container: ModelContainer, than token: DefaultHistoryToken, author: String? = nil) throws -> [DefaultHistoryTransaction] {
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        if let author {
            descriptor.predicate = #Predicate { transaction in (transaction.token > token) && (transaction.author == author) }
        } else {
            descriptor.predicate = #Predicate { $0.token > token }
        }
        return try container.fetchHistory(descriptor)
    }

    static let expiry: [ConformanceCase] = [
        ConformanceCase(area: "tokens", name: "anExpiredTokenInAPredicateThrows", requires: [.history, .historyDeletion]) { target in
            let container = try target.makeContainer()
            let tokens = try saveTrips(4, into: container, authors: ["app", "widget"]).map(\.token)
            let cut = tokens[2]
            try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= cut }))
            try checkThrows(HistoryError(.historyTokenExpired, ""), "#Predicate { $0.token > token } with a token older than deleted history") {
                _ = try fetchNewer(container, than: tokens[0])
            }
            try checkThrows(HistoryError(.historyTokenExpired, ""), "the talk's findTransactions with such a token") {
                _ = try fetchNewer(container, than: tokens[1], author: "widget")
            }
            try checkEqual(try fetchNewer(container, than: cut).map(\.token), [tokens[3]],
                           "transactions newer than the newest deleted one, through the predicate")
            try checkEqual(try fetchNewer(container, than: cut, author: "widget").map(\.token), [tokens[3]],
                           "the talk's findTransactions after the newest deleted one")
        },
        ConformanceCase(area: "tokens", name: "deletingTheNewestTransactionsExpiresEveryOlderToken", requires: [.history, .historyDeletion]) { target in
            let container = try target.makeContainer()
            let transactions = try saveTrips(4, into: container)
            let kept = transactions[1].transactionIdentifier
            try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.transactionIdentifier > kept }))
            try checkEqual(try history(container).map(\.transactionIdentifier), transactions.prefix(2).map(\.transactionIdentifier),
                           "the transactions left after deleting the two newest")
            for (index, transaction) in transactions.prefix(3).enumerated() {
                try checkThrows(HistoryError(.historyTokenExpired, ""), "fetching after token \(index), older than the newest deleted transaction") {
                    _ = try history(container, after: transaction.token)
                }
            }
            try checkEqual(try history(container, after: transactions[3].token).count, 0, "transactions after the newest deleted one")
        },
    ]

    static let numbering: [ConformanceCase] = [
        ConformanceCase(area: "history", name: "numbersKeepRisingAfterAllHistoryIsDeleted", requires: [.history, .historyDeletion]) { target in
            let container = try target.makeContainer()
            let old = try saveTrips(3, into: container)
            try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            try checkEqual(try history(container).count, 0, "transactions left after deleting all history")
            try checkNewHistory(container, after: old)
        },
        ConformanceCase(area: "history", name: "numbersKeepRisingAfterTheNewestTransactionsAreDeleted", requires: [.history, .historyDeletion]) { target in
            let container = try target.makeContainer()
            let old = try saveTrips(4, into: container)
            let kept = old[1].transactionIdentifier
            try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.transactionIdentifier > kept }))
            try checkNewHistory(container, after: old, keeping: Array(old.prefix(2)))
        },
        ConformanceCase(area: "history", name: "numbersKeepRisingWhenAStoreWhoseHistoryWasDeletedIsReopened",
                        requires: [.history, .historyDeletion, .persistence]) { target in
            let configuration = try target.makeConfiguration()
            let old = try saveTrips(3, into: try target.open(configuration))
            try target.open(configuration).deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            try checkNewHistory(try target.open(configuration), after: old)
        },
    ]

    /// Saves once more and checks that the new transaction is numbered after every `old` one,
    /// that the newest old token resumes exactly into it, and that history is `keeping` and it.
    static func checkNewHistory(_ container: ModelContainer, after old: [DefaultHistoryTransaction],
                                keeping kept: [DefaultHistoryTransaction] = []) throws {
        let newest = try require(old.last, "the old transactions")
        try insertTrips(["New"], into: container)
        let new = try history(container, after: newest.token)
        try checkEqual(new.count, 1, "transactions after the newest old token")
        try check(new[0].transactionIdentifier > newest.transactionIdentifier,
                  "the new transaction's number \(new[0].transactionIdentifier) must be above every earlier one (\(newest.transactionIdentifier))")
        try check(new[0].token > newest.token, "the new token must come after the newest old one")
        try checkEqual(try history(container).map(\.transactionIdentifier), (kept + new).map(\.transactionIdentifier), "all history")
    }

    static let limits: [ConformanceCase] = [
        ConformanceCase(area: "history", name: "aLimitAppliesAfterThePredicateAndTheSort", requires: .history) { target in
            let container = try target.makeContainer()
            let transactions = try saveTrips(6, into: container, authors: ["app", "app", "widget"])
            let widget = transactions.filter { $0.author == "widget" }.map(\.transactionIdentifier)
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "widget" }, fetchLimit: 1)
            try checkEqual(try container.fetchHistory(descriptor).map(\.transactionIdentifier), [widget[0]],
                           "the first transaction the predicate selects")
            descriptor.fetchLimit = 5
            try checkEqual(try container.fetchHistory(descriptor).map(\.transactionIdentifier), widget, "a limit above the selection")
            descriptor.sortBy = [SortDescriptor(\.transactionIdentifier, order: .reverse)]
            descriptor.fetchLimit = 1
            try checkEqual(try container.fetchHistory(descriptor).map(\.transactionIdentifier), [widget[1]],
                           "the newest transaction the predicate selects, sorted newest first")
            descriptor.fetchLimit = 0
            try checkEqual(try container.fetchHistory(descriptor).count, 0, "transactions with a limit of 0, sorted")
            descriptor.sortBy = []
            try checkEqual(try container.fetchHistory(descriptor).count, 0, "transactions with a limit of 0")
        },
    ]

    static let erase: [ConformanceCase] = [
        ConformanceCase(area: "erase", name: "eraseRemovesEveryModelAndAllHistory") { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B"], into: container)
            let context = ModelContext(container)
            context.insert(SuiteReading(sensor: "t1", timestamp: SuiteTrip.day(0), value: 1))
            try context.save()
            try container.erase()
            try checkEqual(try storedTripNames(container), [], "trips after erase")
            try checkEqual(try ModelContext(container).fetchCount(FetchDescriptor<SuiteReading>()), 0, "readings after erase")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).count, 0, "transactions after erase")
            }
            try insertTrips(["C"], into: container)
            try checkEqual(try storedTripNames(container), ["C"], "trips saved after erase")
        },
        ConformanceCase(area: "erase", name: "everyTokenTakenBeforeAnEraseIsExpired", requires: .history) { target in
            let container = try target.makeContainer()
            let old = try saveTrips(2, into: container)
            let current = try container.currentHistoryToken()
            try container.erase()
            for (what, token) in [("the first transaction's token", old[0].token), ("the newest transaction's token", old[1].token),
                                  ("the current token", current)] {
                try checkThrows(HistoryError(.historyTokenExpired, ""), "fetching after \(what), taken before the erase") {
                    _ = try history(container, after: token)
                }
                try checkThrows(HistoryError(.historyTokenExpired, ""), "#Predicate { $0.token > token } with \(what), taken before the erase") {
                    _ = try fetchNewer(container, than: token)
                }
            }
            let afterErase = try container.currentHistoryToken()
            try checkEqual(try history(container, after: afterErase).count, 0, "transactions after the current token of the erased store")
            try insertTrips(["New"], into: container)
            let new = try history(container, after: afterErase)
            try checkEqual(new.count, 1, "transactions saved after the erase")
            try check(new[0].transactionIdentifier > old[1].transactionIdentifier,
                      "a transaction after the erase is numbered \(new[0].transactionIdentifier), not above \(old[1].transactionIdentifier)")
        },
        ConformanceCase(area: "erase", name: "anEraseSurvivesReopening", requires: .persistence) { target in
            let configuration = try target.makeConfiguration()
            let container = try target.open(configuration)
            try insertTrips(["A", "B"], into: container)
            let token = target.capabilities.contains(.history) ? try history(container).last?.token : nil
            try container.erase()
            let reopened = try target.open(configuration)
            try checkEqual(try storedTripNames(reopened), [], "trips after erasing and reopening")
            guard let token else { return }
            try checkEqual(try history(reopened).count, 0, "transactions after erasing and reopening")
            try checkThrows(HistoryError(.historyTokenExpired, ""), "fetching after a token taken before the erase, after reopening") {
                _ = try history(reopened, after: token)
            }
            try insertTrips(["C"], into: reopened)
            let new = try require(try history(reopened).last, "the transaction saved after reopening")
            try check(new.token > token, "a transaction saved after the erase and reopening must come after the old token")
        },
    ]

    static let retention: [ConformanceCase] = [
        ConformanceCase(area: "history", name: "retentionKeepsTheNewestTransactionsAndExpiresOlderTokens",
                        requires: [.history, .historyRetention]) { target in
            let container = try target.makeContainer(retention: .transactions(2))
            let context = ModelContext(container)
            var tokens: [DefaultHistoryToken] = []
            for index in 0..<5 {
                context.insert(SuiteTrip(name: "T\(index)", startDate: SuiteTrip.day(index)))
                try context.save()
                tokens.append(try container.currentHistoryToken())
            }
            let kept = try history(container)
            try checkEqual(kept.map(\.token), Array(tokens.suffix(2)), "the transactions a retention of 2 keeps")
            try checkEqual(try storedTripNames(container).count, 5, "retention keeps the data")
            try checkThrows(HistoryError(.historyTokenExpired, ""), "fetching after a token whose history retention deleted") {
                _ = try history(container, after: tokens[0])
            }
            try checkThrows(HistoryError(.historyTokenExpired, ""), "#Predicate { $0.token > token } with such a token") {
                _ = try fetchNewer(container, than: tokens[1])
            }
            try checkEqual(try history(container, after: tokens[2]).map(\.token), Array(tokens.suffix(2)),
                           "transactions after the newest token retention deleted")
            context.insert(SuiteTrip(name: "T5", startDate: SuiteTrip.day(5)))
            try context.save()
            try checkEqual(try history(container).count, 2, "transactions kept after one more save")
            try checkThrows(HistoryError(.historyTokenExpired, ""), "fetching after a token whose history the last save's retention deleted") {
                _ = try history(container, after: tokens[2])
            }
        },
    ]

    static let batchDeletes: [ConformanceCase] = [
        ConformanceCase(area: "crud", name: "deletesOfSeveralEntitiesInOneSaveAreAllSaved", requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let trips = ["A", "B", "C"].map { SuiteTrip(name: $0) }
            let readings = (0..<3).map { SuiteReading(sensor: "s\($0)", timestamp: SuiteTrip.day($0), value: Double($0)) }
            let member = SuiteMember(name: "Ann")
            for trip in trips { context.insert(trip) }
            for reading in readings { context.insert(reading) }
            context.insert(member)
            try context.save()
            let before = target.capabilities.contains(.history) ? try container.currentHistoryToken() : nil
            context.delete(trips[0])
            context.delete(readings[1])
            context.delete(trips[2])
            context.delete(member)
            context.delete(readings[2])
            try context.save()
            let fresh = ModelContext(container)
            try checkEqual(try fresh.fetch(FetchDescriptor<SuiteTrip>()).map(\.name), ["B"], "trips left")
            try checkEqual(try fresh.fetch(FetchDescriptor<SuiteReading>()).map(\.sensor), ["s0"], "readings left")
            try checkEqual(try fresh.fetchCount(FetchDescriptor<SuiteMember>()), 0, "members left")
            guard let before else { return }
            let transactions = try history(container, after: before)
            try checkEqual(transactions.count, 1, "transactions of the save")
            try checkEqual(kinds(transactions[0]), ["delete SuiteTrip", "delete SuiteReading", "delete SuiteTrip", "delete SuiteMember",
                                                    "delete SuiteReading"], "the deletes in the order they were made")
        },
    ]
}
