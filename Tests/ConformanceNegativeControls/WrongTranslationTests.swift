#if DEBUG
import MemoryStore
import StoreConformance
import StoreProtocol
import Testing

/// The differential query cases catch a wrong translation: with `<` translated as `<=` (a
/// fault only tests can set, for their own task), the memory store answers some predicates
/// wrongly, and every differential query case must fail; without it they pass.
@Suite struct WrongTranslationTests {
    static let target = ConformanceTarget(name: "memory store", capabilities: [.history, .updates, .historyDeletion]) {
        MemoryStoreConfiguration()
    }
    static let cases = ["queries/fixedPredicatesMatchEvaluationOnModels", "queries/generatedPredicatesMatchEvaluationOnModels",
                        "queries/generatedPredicatesOverCanonicalRowsMatchEvaluationOnModels"]

    @Test(arguments: cases)
    func aLessThanTranslatedAsLessThanOrEqualIsCaught(_ name: String) async throws {
        let check = try #require(ConformanceSuite.allCases.first { $0.description == name })
        try await check.run(Self.target)   // passes without the fault
        await QueryTranslationFault.$active.withValue(.lessThanAsLessThanOrEqual) {
            await #expect(throws: ConformanceFailure.self, "\(name) catches `<` translated as `<=`") {
                try await check.run(Self.target)
            }
        }
    }
}
#endif
