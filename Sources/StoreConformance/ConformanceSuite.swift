/// The whole store contract (what `DataStore` and `HistoryProviding` promise) as cases. Run it from a backend's tests:
///
/// ```swift
/// import StoreConformance
/// import Testing
///
/// let target = ConformanceTarget(name: "MyStore", capabilities: .all) { location in
///     MyStoreConfiguration(url: location)
/// }
///
/// @Test(arguments: ConformanceSuite.cases(for: target))
/// func conformance(_ check: ConformanceCase) async throws { try await check.run(target) }
/// ```
public enum ConformanceSuite {
    /// Every case, whatever the capabilities.
    public static var allCases: [ConformanceCase] {
        CRUDCases.all + TypeCases.all + FetchCases.all + IdentityCases.all + SaveCases.all + ErrorCases.all
            + InsertOnlyCases.all + HistoryCases.all + TokenCases.all + MultiStoreCases.all + PersistenceCases.all
            + ConcurrencyCases.all + UpsertCases.all + ScaleCases.all + StoreLevelCases.all + QueryCases.all
            + RelationshipCases.all + MigrationCases.all + RelatedUpsertCases.all + ConcurrentChangeCases.all
            + ToManyMergeCases.all + KeyEqualityCases.all + NaNUniqueCases.all + HistoryLifecycleCases.all
            + MigrationPlanCases.all + AttributeTypeCases.all
            + ExclusiveAccessCases.all
            + UniqueSwapCases.all
            + RelatedRowCases.all
    }

    /// The cases that apply to a target's capabilities.
    public static func cases(for target: ConformanceTarget) -> [ConformanceCase] {
        allCases.filter { $0.applies(to: target.capabilities) }
    }

    /// Runs every applicable case and returns the failures (empty when the backend conforms),
    /// for test frameworks other than Swift Testing.
    public static func run(_ target: ConformanceTarget) async -> [(ConformanceCase, any Error)] {
        var failures: [(ConformanceCase, any Error)] = []
        for check in cases(for: target) {
            do { try await check.run(target) } catch { failures.append((check, error)) }
        }
        return failures
    }
}
