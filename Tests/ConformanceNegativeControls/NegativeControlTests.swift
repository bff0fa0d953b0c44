import Foundation
import StoreConformance
import StoreProtocol
import StoreTestSupport
import Testing

/// The suite's negative control: each broken store must fail the cases named here (and the
/// run reports which others caught it). A case that stops checking anything shows up as a
/// flaw that is no longer caught.
/// In the full run only (`DATASTORES_FULL_TESTS=1`, as CI and mutate.py run it): each broken store runs the whole suite, the
/// largest share of a quick run otherwise.
@Suite(.enabled(if: FullTestRun.isEnabled)) struct NegativeControlTests {
    static let catchers: [Flaw: String] = [
        .ignoresPaging: "store/aStoreAnswersOffsetLimitAndSortExactly",
        .ignoresSort: "store/aStoreAnswersOffsetLimitAndSortExactly",
        .repeatsTheTokensTransaction: "tokens/afterATokenComesExactlyWhatWasSavedLater",
        .reversesChanges: "history/changesKeepTheOrderTheyWereMade",
        .duplicatesInsertsOfAStoredID: "upserts/anInsertWithAStoredIDUpdatesThatModel",
        .dropsDeletes: "crud/deletesAreSaved",
        .writesWholeSnapshots: "merging/twoContextsChangingDifferentAttributesKeepBoth",
        .writesToManyRelationshipsWhole: "merging/twoContextsAddingMembersToOneRelationshipKeepBoth",
        .keysRowsBySpelling: "keys/aStringKeyInAnotherNormalizationFormIsTheSameModel",
        .keepsRelationshipsOnUpdate: "upserts/aCollisionWithAStoredModelWithRelatedModelsUpdatesItRelationshipsIncluded",
        .collidesOnNaN: "upserts/aNaNNeverCollidesOnAUniqueConstraint",
        .dropsSubSecondDates: "types/everyAttributeTypeRoundTripsExactlyThroughReopening",
        .reversesArrays: "types/everyAttributeTypeRoundTripsExactlyThroughReopening",
        .reportsEveryAttributeAsUpdated: "history/anUpdateListsExactlyTheOneAttributeSet",
        .checksUniqueValuesRowByRow: "upserts/storedModelsSwapUniqueValuesInOneSave",
    ]

    @Test(arguments: Flaw.allCases)
    func theSuiteCatches(_ flaw: Flaw) async throws {
        let target = ConformanceTarget(name: "broken (\(flaw))", capabilities: [.history, .updates, .historyDeletion]) {
            BrokenStoreConfiguration(flaw: flaw)
        }
        let failed = Set(await ConformanceSuite.run(target).map(\.0.description))
        let catcher = try #require(Self.catchers[flaw])
        #expect(ConformanceSuite.allCases.contains { $0.description == catcher }, "\(catcher) is a case of the suite")
        #expect(failed.contains(catcher), "\(flaw) is caught by \(catcher); failing cases: \(failed.sorted())")
    }

    /// The same store without a flaw passes: the failures above come from the flaws.
    @Test func theWrapperWithoutAFlawConforms() async throws {
        let target = ConformanceTarget(name: "wrapped memory store", capabilities: [.history, .updates, .historyDeletion]) {
            BrokenStoreConfiguration(flaw: nil)
        }
        let failed = await ConformanceSuite.run(target).map { "\($0.0): \($0.1)" }
        #expect(failed.isEmpty, "\(failed)")
    }

    /// Every merging case catches a store that writes whole snapshots, including the one of two
    /// containers on one configuration (a shared store, so that it runs).
    @Test(arguments: [Flaw.writesWholeSnapshots, nil])
    func everyMergingCaseCatchesWholeSnapshots(_ flaw: Flaw?) async throws {
        let target = ConformanceTarget(name: "shared broken (\(flaw.map { "\($0)" } ?? "none"))",
                                       capabilities: [.history, .updates, .historyDeletion, .persistence]) {
            BrokenStoreConfiguration(flaw: flaw, sharedName: UUID().uuidString)
        }
        let mergingCases = ConformanceSuite.cases(for: target).filter { $0.area == "merging" }
        #expect(mergingCases.count >= 6)
        var failed: [String] = []
        for check in mergingCases {
            do { try await check.run(target) } catch { failed.append("\(check): \(error)") }
        }
        if flaw == nil {
            #expect(failed.isEmpty, "the wrapper without a flaw passes: \(failed)")
        } else {
            #expect(failed.count == mergingCases.count, "every merging case fails; failing: \(failed)")
        }
    }

    /// Every case of two saves changing one to-many relationship catches a store that writes
    /// the relationship whole, including the one of two containers on one configuration.
    @Test func everyToManyMergingCaseCatchesWholeArrays() async throws {
        let target = ConformanceTarget(name: "shared broken (to-many whole)",
                                       capabilities: [.history, .updates, .historyDeletion, .persistence]) {
            BrokenStoreConfiguration(flaw: .writesToManyRelationshipsWhole, sharedName: UUID().uuidString)
        }
        let names = ["merging/twoContextsAddingMembersToOneRelationshipKeepBoth",
                     "merging/twoStoresOnOneConfigurationAddingMembersToOneRelationshipKeepBoth",
                     "merging/twoContextsMovingDifferentMembersOutKeepBoth"]
        let cases = ConformanceSuite.cases(for: target).filter { names.contains($0.description) }
        #expect(cases.count == names.count)
        var passed: [String] = []
        for check in cases {
            do { try await check.run(target); passed.append(check.description) } catch {}
        }
        #expect(passed.isEmpty, "every to-many merging case fails; passing: \(passed)")
    }

    static let migrationCatchers: [MigrationFlaw: String] = [
        .recordsNoSchema: "migration/aRenamedAttributeKeepsItsValues",
        .recordsNoVersion: "migration/aPlanThatDoesNotListTheStoresVersionIsRefused",
        .acknowledgesWithoutMigrating: "migration/anAddedAttributeWithADefaultReadsAsTheDefault",
        .swallowsMigrationErrors: "migration/aCustomStageThatThrowsChangesNothing",
    ]

    static func migratingTarget(_ flaw: MigrationFlaw?) -> ConformanceTarget {
        let directory = FileManager.default.temporaryDirectory.appending(path: "broken-migrating-\(ProcessInfo.processInfo.processIdentifier)")
        return ConformanceTarget(name: "broken migrating (\(flaw?.rawValue ?? "none"))", capabilities: [.updates, .persistence]) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return BrokenMigratingStoreConfiguration(url: directory.appending(path: UUID().uuidString + ".json"), flaw: flaw)
        }
    }

    @Test(arguments: MigrationFlaw.allCases)
    func theMigrationAreaCatches(_ flaw: MigrationFlaw) async throws {
        let target = Self.migratingTarget(flaw)
        let migrationCases = ConformanceSuite.cases(for: target).filter { $0.area == "migration" }
        var failed: Set<String> = []
        for check in migrationCases {
            do { try await check.run(target) } catch { failed.insert(check.description) }
        }
        let catcher = try #require(Self.migrationCatchers[flaw])
        #expect(migrationCases.contains { $0.description == catcher }, "\(catcher) is a case of the suite")
        #expect(failed.contains(catcher), "\(flaw) is caught by \(catcher); failing cases: \(failed.sorted())")
    }

    @Test func theMigratingWrapperWithoutAFlawConforms() async throws {
        let target = Self.migratingTarget(nil)
        var failed: [String] = []
        for check in ConformanceSuite.cases(for: target) where check.area == "migration" {
            do { try await check.run(target) } catch { failed.append("\(check): \(error)") }
        }
        #expect(failed.isEmpty, "\(failed)")
    }
}
