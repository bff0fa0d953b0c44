import Foundation
import StoreProtocol

/// Schema migration on stores that keep their data: each lightweight change, renames, a custom
/// stage, refusals that change nothing, and history written before a migration.
///
/// Every case writes version 1 (``JourneyV1``, ``StopV1``), then opens the same configuration
/// with other models, as the next release of an app would.
enum MigrationCases {
    static let all: [ConformanceCase] = lightweight + renames + constraints + refusals + versions + stages + history

    /// Seeds a store with three journeys and two stops of version 1; returns its configuration.
    static func seed(_ target: ConformanceTarget) throws -> any DataStoreConfiguration {
        let configuration = try target.makeConfiguration()
        let container = try ModelContainer(for: Schema([JourneyV1.self, StopV1.self]), configurations: [configuration])
        let context = ModelContext(container)
        for (name, rating, secret) in [("Iceland", 5, "aurora"), ("Japan", 4, nil), ("Peru", 2, "llama")] {
            context.insert(JourneyV1(name: name, rating: rating, secret: secret))
        }
        context.insert(StopV1(place: "Reykjavik"))
        context.insert(StopV1(place: "Cusco"))
        try context.save()
        return configuration
    }

    static func open(_ configuration: any DataStoreConfiguration, _ types: any PersistentModel.Type...,
                     version: Schema.Version? = nil, plan: (any SchemaMigrationPlan.Type)? = nil) throws -> ModelContainer {
        try ModelContainer(for: Schema(types, version: version), migrationPlan: plan, configurations: [configuration])
    }

    /// The version 1 journeys as "name rating secret", sorted: what a refused migration must leave.
    static func journeysV1(_ configuration: any DataStoreConfiguration) throws -> [String] {
        let container = try open(configuration, JourneyV1.self, StopV1.self)
        return try ModelContext(container).fetch(FetchDescriptor<JourneyV1>()).map { "\($0.name) \($0.rating) \($0.secret ?? "nil")" }.sorted()
    }

    static let seeded = ["Iceland 5 aurora", "Japan 4 nil", "Peru 2 llama"]

    /// Checks that opening `configuration` as `open` throws `code` with a message holding `words`,
    /// and that the store still reads as seeded.
    static func checkRefused(_ configuration: any DataStoreConfiguration, code: DataStoreError.Code, words: [String],
                             _ what: String, _ open: () throws -> ModelContainer) throws {
        do {
            _ = try open()
            throw ConformanceFailure("\(what): the container opened; expected \(code)")
        } catch let error as DataStoreError {
            try checkEqual(error.code, code, "\(what): the error's code (\(error.message))")
            for word in words { try check(error.message.contains(word), "\(what): the message names \(word): \(error.message)") }
        }
        try checkEqual(try journeysV1(configuration), seeded, "\(what): the journeys after the refusal, read as version 1")
    }

    static let lightweight: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "anAddedOptionalAttributeReadsAsNil", requires: .persistence) { target in
            let configuration = try seed(target)
            let context = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self))
            let journeys = try context.fetch(FetchDescriptor<JourneyWithNote>(sortBy: [SortDescriptor(\.name)]))
            try checkEqual(journeys.map { "\($0.name) \($0.rating) \($0.note ?? "nil")" }, ["Iceland 5 nil", "Japan 4 nil", "Peru 2 nil"], "journeys")
            let added = JourneyWithNote(name: "Chile")
            added.note = "wine"
            context.insert(added)
            try context.save()
            let reopened = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self))
            try checkEqual(try reopened.fetch(FetchDescriptor<JourneyWithNote>()).compactMap(\.note), ["wine"], "notes after reopening")
        },
        ConformanceCase(area: "migration", name: "anAddedAttributeWithADefaultReadsAsTheDefault", requires: .persistence) { target in
            let configuration = try seed(target)
            let context = ModelContext(try open(configuration, JourneyWithStars.self, StopV1.self))
            context.insert(JourneyWithStars(name: "Chile", stars: 5))
            try context.save()
            let reopened = ModelContext(try open(configuration, JourneyWithStars.self, StopV1.self))
            let stars = try reopened.fetch(FetchDescriptor<JourneyWithStars>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name) \($0.stars)" }
            try checkEqual(stars, ["Chile 5", "Iceland 3", "Japan 3", "Peru 3"], "stars")
            try checkEqual(try reopened.fetchCount(FetchDescriptor<JourneyWithStars>(predicate: #Predicate { $0.stars == 3 })), 3,
                           "journeys a predicate on the new attribute selects")
        },
        ConformanceCase(area: "migration", name: "aRemovedAttributeIsDroppedAndTheOlderModelIsRefused", requires: .persistence) { target in
            let configuration = try seed(target)
            let context = ModelContext(try open(configuration, JourneyWithoutSecret.self, StopV1.self))
            try checkEqual(try context.fetch(FetchDescriptor<JourneyWithoutSecret>(sortBy: [SortDescriptor(\.name)])).map(\.name),
                           ["Iceland", "Japan", "Peru"], "journeys")
            // The version that still had `secret` would read the migrated rows without it.
            do {
                _ = try open(configuration, JourneyV1.self, StopV1.self)
                throw ConformanceFailure("the older model opened the migrated store")
            } catch let error as DataStoreError {
                try checkEqual(error.code, .incompatibleSchema, "the older model's error (\(error.message))")
            }
            let reopened = ModelContext(try open(configuration, JourneyWithoutSecret.self, StopV1.self))
            try checkEqual(try reopened.fetchCount(FetchDescriptor<JourneyWithoutSecret>()), 3, "journeys after the refusal")
        },
        ConformanceCase(area: "migration", name: "aNewEntityStartsEmptyAndTheOthersKeepTheirRows", requires: .persistence) { target in
            let configuration = try seed(target)
            let context = ModelContext(try open(configuration, JourneyV1.self, StopV1.self, Landmark.self))
            try checkEqual(try context.fetchCount(FetchDescriptor<Landmark>()), 0, "landmarks")
            context.insert(Landmark(label: "Hallgrimskirkja"))
            try context.save()
            try checkEqual(try journeysV1(configuration), seeded, "journeys")
            let reopened = ModelContext(try open(configuration, JourneyV1.self, StopV1.self, Landmark.self))
            try checkEqual(try reopened.fetch(FetchDescriptor<Landmark>()).map(\.label), ["Hallgrimskirkja"], "landmarks after reopening")
        },
        ConformanceCase(area: "migration", name: "anEntityLeftOutOfAContainerKeepsItsRows", requires: .persistence) { target in
            // A widget's container with fewer models is not a migration that removes the others.
            let configuration = try seed(target)
            _ = try ModelContext(try open(configuration, JourneyWithNote.self)).fetch(FetchDescriptor<JourneyWithNote>())
            let context = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self))
            try checkEqual(try context.fetch(FetchDescriptor<StopV1>()).map(\.place).sorted(), ["Cusco", "Reykjavik"], "stops")
        },
        ConformanceCase(area: "migration", name: "aPlansVersionThatLeavesAnEntityOutRemovesItsRows", requires: .persistence) { target in
            let configuration = try seed(target)
            let v2 = ModelContext(try open(configuration, JourneyWithNote.self, version: Schema.Version(2, 0, 0), plan: LightweightPlan.self))
            try checkEqual(try v2.fetchCount(FetchDescriptor<JourneyWithNote>()), 3, "journeys")
            let v3 = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(3, 0, 0)))
            try checkEqual(try v3.fetchCount(FetchDescriptor<StopV1>()), 0, "stops when version 3 brings the entity back")
        },
    ]

    static let renames: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "aRenamedAttributeKeepsItsValues", requires: .persistence) { target in
            let configuration = try seed(target)
            let context = ModelContext(try open(configuration, JourneyRenamed.self, StopV1.self))
            let titles = try context.fetch(FetchDescriptor<JourneyRenamed>(sortBy: [SortDescriptor(\.title)])).map { "\($0.title) \($0.rating)" }
            try checkEqual(titles, ["Iceland 5", "Japan 4", "Peru 2"], "titles")
            try checkEqual(try context.fetch(FetchDescriptor<JourneyRenamed>(predicate: #Predicate { $0.title == "Japan" })).map(\.rating), [4],
                           "the journey the new name selects")
        },
        ConformanceCase(area: "migration", name: "aRenamedEntityKeepsItsRows", requires: .persistence) { target in
            let configuration = try seed(target)
            let context = ModelContext(try open(configuration, JourneyV1.self, Halt.self))
            try checkEqual(try context.fetch(FetchDescriptor<Halt>()).map(\.place).sorted(), ["Cusco", "Reykjavik"], "halts")
            let reopened = ModelContext(try open(configuration, JourneyV1.self, Halt.self))
            try checkEqual(try reopened.fetchCount(FetchDescriptor<Halt>()), 2, "halts after reopening")
            try checkEqual(try reopened.fetchCount(FetchDescriptor<JourneyV1>()), 3, "journeys")
        },
    ]

    static let constraints: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "anIndexAddedOrRemovedAnswersFetchesAlike", requires: .persistence) { target in
            let configuration = try seed(target)
            let descriptor = FetchDescriptor<JourneyIndexed>(predicate: #Predicate { $0.rating > 2 }, sortBy: [SortDescriptor(\.rating)])
            let indexed = ModelContext(try open(configuration, JourneyIndexed.self, StopV1.self))
            try checkEqual(try indexed.fetch(descriptor).map(\.name), ["Japan", "Iceland"], "journeys rated above 2, indexed")
            var limited = FetchDescriptor<JourneyIndexed>(sortBy: [SortDescriptor(\.rating, order: .reverse)])
            limited.fetchLimit = 1
            try checkEqual(try indexed.fetch(limited).map(\.name), ["Iceland"], "the best journey, by the index")
            let unindexed = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self))
            try checkEqual(try unindexed.fetch(FetchDescriptor<JourneyWithNote>(predicate: #Predicate { $0.rating > 2 }, sortBy: [SortDescriptor(\.rating)])).map(\.name),
                           ["Japan", "Iceland"], "journeys rated above 2, index removed")
        },
        ConformanceCase(area: "migration", name: "anAddedUniqueConstraintIsCheckedAgainstStoredRows", requires: [.persistence, .updates]) { target in
            let configuration = try seed(target)
            let duplicate = ModelContext(try open(configuration, JourneyV1.self, StopV1.self))
            let second = JourneyV1(name: "Iceland", rating: 1)
            duplicate.insert(second)
            try duplicate.save()
            do {
                _ = try open(configuration, JourneyUniqueName.self, StopV1.self)
                throw ConformanceFailure("a unique constraint that stored rows break was added")
            } catch let error as DataStoreError {
                try checkEqual(error.code, .incompatibleSchema, "the error's code (\(error.message))")
                try check(error.message.contains(second.id.uuidString), "the message names the colliding journey: \(error.message)")
            }
            try checkEqual(try journeysV1(configuration), ["Iceland 1 nil"] + seeded, "journeys after the refusal")
            let context = ModelContext(try open(configuration, JourneyV1.self, StopV1.self))
            for journey in try context.fetch(FetchDescriptor<JourneyV1>(predicate: #Predicate { $0.rating == 1 })) { context.delete(journey) }
            try context.save()
            let unique = ModelContext(try open(configuration, JourneyUniqueName.self, StopV1.self))
            let again = JourneyUniqueName(name: "Japan", rating: 9)
            unique.insert(again)
            try unique.save()
            try checkEqual(try ModelContext(try open(configuration, JourneyUniqueName.self, StopV1.self))
                .fetch(FetchDescriptor<JourneyUniqueName>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name) \($0.rating)" },
                           ["Iceland 5", "Japan 9", "Peru 2"], "journeys after an insert that the new constraint makes an update")
        },
    ]

    static let refusals: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "aNewAttributeWithoutADefaultIsRefusedAndChangesNothing", requires: .persistence) { target in
            let configuration = try seed(target)
            try checkRefused(configuration, code: .incompatibleSchema, words: ["SuiteJourney.stars", "default value"], "a required new attribute") {
                try open(configuration, JourneyWithRequiredStars.self, StopV1.self)
            }
        },
        ConformanceCase(area: "migration", name: "aChangedTypeWithoutACustomStageIsRefusedAndChangesNothing", requires: .persistence) { target in
            let configuration = try seed(target)
            try checkRefused(configuration, code: .incompatibleSchema, words: ["SuiteJourney.rating", "Int", "String", "MigrationStage"],
                             "a changed type") {
                try open(configuration, JourneyV2.self, StopV1.self)
            }
        },
        ConformanceCase(area: "migration", name: "aStoreOfANewerVersionIsRefused", requires: .persistence) { target in
            let configuration = try seed(target)
            _ = try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(2, 0, 0))
            do {
                _ = try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(1, 5, 0))
                throw ConformanceFailure("version 1.5.0 opened a store of version 2.0.0")
            } catch let error as DataStoreError {
                try checkEqual(error.code, .incompatibleSchema, "the error's code (\(error.message))")
                try check(error.message.contains("2.0.0"), "the message names the store's version: \(error.message)")
            }
            let context = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(2, 0, 0)))
            try checkEqual(try context.fetchCount(FetchDescriptor<JourneyWithNote>()), 3, "journeys at version 2.0.0 after the refusal")
        },
    ]

    static let versions: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "aStoreStillOpenWithTheOldModelsIsRefusedOnceMigrated", requires: .persistence) { target in
            // An app's old process (or a second container) holds the store while a new one migrates it.
            let configuration = try seed(target)
            let old = try open(configuration, JourneyV1.self, StopV1.self)
            _ = try ModelContext(old).fetchCount(FetchDescriptor<JourneyV1>())
            _ = try open(configuration, JourneyRenamed.self, StopV1.self)
            do {
                let read = try ModelContext(old).fetch(FetchDescriptor<JourneyV1>())
                throw ConformanceFailure("the old models read \(read.count) journeys from the migrated store")
            } catch let error as DataStoreError {
                try checkEqual(error.code, .incompatibleSchema, "the old models' fetch (\(error.message))")
            }
            let context = ModelContext(old)
            context.insert(JourneyV1(name: "Stale", rating: 1))
            do {
                try context.save()
                throw ConformanceFailure("the old models saved into the migrated store")
            } catch let error as DataStoreError {
                try checkEqual(error.code, .incompatibleSchema, "the old models' save (\(error.message))")
            }
            let titles = try ModelContext(try open(configuration, JourneyRenamed.self, StopV1.self))
                .fetch(FetchDescriptor<JourneyRenamed>(sortBy: [SortDescriptor(\.title)])).map(\.title)
            try checkEqual(titles, ["Iceland", "Japan", "Peru"], "the migrated journeys")
        },
        ConformanceCase(area: "migration", name: "aContainerWithoutAVersionReadsAVersionedStoreOfItsModelsAsItIs", requires: .persistence) { target in
            // A widget with a plain Schema of the app's current models.
            let configuration = try seed(target)
            _ = try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(2, 0, 0))
            let widget = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self))
            try checkEqual(try widget.fetchCount(FetchDescriptor<JourneyWithNote>()), 3, "journeys the widget reads")
            let app = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(2, 0, 0)))
            try checkEqual(try app.fetchCount(FetchDescriptor<JourneyWithNote>()), 3, "journeys the app reads after the widget")
        },
        ConformanceCase(area: "migration", name: "otherModelsWithoutAVersionAreRefusedByAVersionedStore", requires: .persistence) { target in
            // Older models without a version cannot say they are older: refused, not migrated back.
            let configuration = try seed(target)
            _ = try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(2, 0, 0))
            do {
                _ = try open(configuration, JourneyV1.self, StopV1.self)
                throw ConformanceFailure("unversioned older models opened a store of version 2.0.0")
            } catch let error as DataStoreError {
                try checkEqual(error.code, .incompatibleSchema, "the error's code (\(error.message))")
            }
            let app = ModelContext(try open(configuration, JourneyWithNote.self, StopV1.self, version: Schema.Version(2, 0, 0)))
            try checkEqual(try app.fetchCount(FetchDescriptor<JourneyWithNote>()), 3, "journeys at version 2.0.0 after the refusal")
        },
    ]

    static let stages: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "aCustomStageConvertsWhatALightweightMigrationCannot", requires: [.persistence, .updates]) { target in
            let configuration = try seed(target)
            let container = try ModelContainer(for: Schema(versionedSchema: SuiteSchemaV2.self), migrationPlan: SuiteMigrationPlan.self,
                                               configurations: [configuration])
            let ratings = try ModelContext(container).fetch(FetchDescriptor<JourneyV2>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name) \($0.rating)" }
            try checkEqual(ratings, ["Iceland *****", "Japan ****", "Peru **"], "ratings as text")
            // Version 2 leaves stops out: a version 3 that brings them back finds none.
            let v3 = try open(configuration, JourneyV2.self, StopV1.self, version: Schema.Version(3, 0, 0))
            try checkEqual(try ModelContext(v3).fetchCount(FetchDescriptor<StopV1>()), 0, "stops")
        },
        ConformanceCase(area: "migration", name: "aCustomStageThatThrowsChangesNothing", requires: [.persistence, .updates]) { target in
            let configuration = try seed(target)
            do {
                _ = try ModelContainer(for: Schema(versionedSchema: SuiteSchemaV2.self), migrationPlan: SuiteFailingMigrationPlan.self,
                                       configurations: [configuration])
                throw ConformanceFailure("a migration whose didMigrate threw opened")
            } catch is SuiteStageFailure {}
            try checkEqual(try journeysV1(configuration), seeded, "journeys after the failed migration")
            try checkEqual(try ModelContext(try open(configuration, JourneyV1.self, StopV1.self)).fetchCount(FetchDescriptor<StopV1>()), 2, "stops")
            let container = try ModelContainer(for: Schema(versionedSchema: SuiteSchemaV2.self), migrationPlan: SuiteMigrationPlan.self,
                                               configurations: [configuration])
            try checkEqual(try ModelContext(container).fetchCount(FetchDescriptor<JourneyV2>(predicate: #Predicate { $0.rating == "****" })), 1,
                           "journeys rated 4 after migrating again")
        },
        ConformanceCase(area: "migration", name: "anInsertOnlyStoreRefusesACustomStageAndChangesNothing", requires: .persistence, lacks: .updates) { target in
            let configuration = try seed(target)
            try checkRefused(configuration, code: .unsupportedFeature, words: [], "a custom stage") {
                try ModelContainer(for: Schema(versionedSchema: SuiteSchemaV2.self), migrationPlan: SuiteMigrationPlan.self,
                                   configurations: [configuration])
            }
        },
    ]

    static let history: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "historyWrittenBeforeAMigrationReadsInTheNewNames", requires: [.persistence, .history, .updates]) { target in
            let configuration = try seed(target)
            let v1 = ModelContext(try open(configuration, JourneyV1.self, StopV1.self))
            let journeys = try v1.fetch(FetchDescriptor<JourneyV1>(sortBy: [SortDescriptor(\.name)]))
            journeys[0].rating = 6
            journeys[1].secret = "sakura"
            v1.delete(journeys[2])
            try v1.save()
            let container = try open(configuration, JourneyRenamed.self, StopV1.self)
            let last = try require(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last, "the last transaction")
            var seen: [String] = []
            for change in last.changes {
                switch change {
                case .update(let update as DefaultHistoryUpdate<JourneyRenamed>):
                    // By name: an @Model property's key path describes itself as `<computed …>`.
                    let names = update.updatedAttributes.map { "\\JourneyRenamed." + (JourneyRenamed.attributeName(of: $0) ?? "\($0)") }
                    seen.append("update " + names.sorted().joined(separator: ","))
                case .delete(let delete as DefaultHistoryDelete<JourneyRenamed>):
                    seen.append("delete \(delete.tombstone[\.title] ?? "nil")")
                default:
                    seen.append("other \(change)")
                }
            }
            try checkEqual(seen.sorted(), ["delete Peru", "update \\JourneyRenamed.rating", "update \\JourneyRenamed.secret"],
                           "the changes of the transaction before the migration")
            let withoutSecret = try open(configuration, JourneyWithoutSecretRenamed.self, StopV1.self)
            let updates = try withoutSecret.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.changes.compactMap {
                if case .update(let update as DefaultHistoryUpdate<JourneyWithoutSecretRenamed>) = $0 { update.updatedAttributes.count } else { nil }
            }
            try checkEqual(updates?.sorted(), [0, 1], "attributes of the two updates once `secret` is removed (dropped from typed history)")
        },
        ConformanceCase(area: "migration", name: "insertsWrittenBeforeAMigrationStayInHistory", requires: [.persistence, .history]) { target in
            let configuration = try seed(target)
            let container = try open(configuration, JourneyRenamed.self, Halt.self)
            let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            try checkEqual(transactions.flatMap(kinds).sorted(),
                           ["insert SuiteHalt", "insert SuiteHalt", "insert SuiteJourney", "insert SuiteJourney", "insert SuiteJourney"],
                           "the seed's inserts, under the renamed entity")
        },
    ]
}

/// A plan of lightweight versions: version 2 leaves stops out.
enum LightweightPlan: SchemaMigrationPlan {
    enum V1: VersionedSchema {
        static let versionIdentifier = Schema.Version(1, 0, 0)
        static var models: [any PersistentModel.Type] { [JourneyV1.self, StopV1.self] }
    }
    enum V2: VersionedSchema {
        static let versionIdentifier = Schema.Version(2, 0, 0)
        static var models: [any PersistentModel.Type] { [JourneyWithNote.self] }
    }
    static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
    static var stages: [MigrationStage] { [] }
}
