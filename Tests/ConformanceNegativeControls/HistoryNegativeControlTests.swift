import Foundation
import StoreConformance
import StoreProtocol
import StoreTestSupport
import Testing

/// The history lifecycle cases' negative control: each flawed store must fail the cases named
/// here, and the store without a flaw passes the suite.
/// In the full run only (`DATASTORES_FULL_TESTS=1`, as CI and mutate.py run it): each flawed store runs the whole suite, the
/// largest share of a quick run otherwise.
@Suite(.enabled(if: FullTestRun.isEnabled)) struct HistoryNegativeControlTests {
    static let catchers: [HistoryFlaw: [String]] = [
        .neverExpiresTokens: ["tokens/anExpiredTokenInAPredicateThrows", "erase/everyTokenTakenBeforeAnEraseIsExpired",
                              "history/retentionKeepsTheNewestTransactionsAndExpiresOlderTokens"],
        .expiresBelowTheOldestKeptTransactionOnly: ["tokens/deletingTheNewestTransactionsExpiresEveryOlderToken"],
        .numbersFromTheNewestKeptTransaction: ["history/numbersKeepRisingAfterAllHistoryIsDeleted",
                                               "history/numbersKeepRisingAfterTheNewestTransactionsAreDeleted"],
        .forgetsTheCounterWhenReopened: ["history/numbersKeepRisingWhenAStoreWhoseHistoryWasDeletedIsReopened"],
        .keepsTheNewestTokenValidAcrossErase: ["erase/everyTokenTakenBeforeAnEraseIsExpired"],
        .eraseKeepsHistory: ["erase/eraseRemovesEveryModelAndAllHistory"],
        .eraseIsNotWrittenThrough: ["erase/anEraseSurvivesReopening"],
        .limitsBeforeThePredicate: ["history/aLimitAppliesAfterThePredicateAndTheSort"],
        .ignoresRetention: ["history/retentionKeepsTheNewestTransactionsAndExpiresOlderTokens"],
        .savesTheDeletesOfOneEntityOnly: ["crud/deletesOfSeveralEntitiesInOneSaveAreAllSaved"],
    ]

    static func target(_ flaw: HistoryFlaw?) -> ConformanceTarget {
        ConformanceTarget(name: "flawed history (\(flaw?.rawValue ?? "none"))", capabilities: [.history, .updates, .historyDeletion, .persistence]) {
            FlawedHistoryStoreConfiguration(flaw: flaw)
        }.retaining { retention in
            FlawedHistoryStoreConfiguration(historyRetention: retention, flaw: flaw)
        }
    }

    /// The cases that apply, but migration: the store records no schema and never migrates.
    static func failures(_ target: ConformanceTarget) async -> [String: String] {
        var failed: [String: String] = [:]
        for check in ConformanceSuite.cases(for: target) where check.area != "migration" {
            do { try await check.run(target) } catch { failed[check.description] = "\(error)" }
        }
        return failed
    }

    @Test(arguments: HistoryFlaw.allCases)
    func theSuiteCatches(_ flaw: HistoryFlaw) async throws {
        let failed = await Self.failures(Self.target(flaw))
        for catcher in try #require(Self.catchers[flaw]) {
            #expect(ConformanceSuite.allCases.contains { $0.description == catcher }, "\(catcher) is a case of the suite")
            #expect(failed[catcher] != nil, "\(flaw) is caught by \(catcher); failing cases: \(failed.keys.sorted())")
        }
    }

    @Test func theStoreWithoutAFlawConforms() async throws {
        let failed = await Self.failures(Self.target(nil))
        #expect(failed.isEmpty, "\(failed)")
    }
}
