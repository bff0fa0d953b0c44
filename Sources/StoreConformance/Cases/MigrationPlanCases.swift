import Foundation
import StoreProtocol

/// Migration plans that do not lead from the store's version to the container's stage by stage:
/// each is refused with a message naming the missing step, and the store is left as it was.
/// Opened lightweight instead, the plan's custom stage would silently never run.
enum MigrationPlanCases {
    /// Version 1.5: version 1 with an optional note.
    enum NoteSchemaV15: VersionedSchema {
        static let versionIdentifier = Schema.Version(1, 5, 0)
        static var models: [any PersistentModel.Type] { [JourneyWithNote.self, StopV1.self] }
    }

    /// Version 2 with the same models as version 1.5: only its stage tells them apart.
    enum NoteSchemaV2: VersionedSchema {
        static let versionIdentifier = Schema.Version(2, 0, 0)
        static var models: [any PersistentModel.Type] { [JourneyWithNote.self, StopV1.self] }
    }

    /// Writes "migrated" into every note: a stage whose effect a case can see.
    static let noteEveryJourney: @Sendable (ModelContext) throws -> Void = { context in
        for journey in try context.fetch(FetchDescriptor<JourneyWithNote>()) { journey.note = "migrated" }
        try context.save()
    }

    /// Lists versions 1 and 2 only: a store of version 1.5 has no step to version 2.
    enum PlanWithoutTheStoresVersion: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [SuiteSchemaV1.self, NoteSchemaV2.self] }
        static var stages: [MigrationStage] {
            [.custom(fromVersion: SuiteSchemaV1.self, toVersion: NoteSchemaV2.self, willMigrate: nil, didMigrate: noteEveryJourney)]
        }
    }

    /// A stage from version 1 straight to 2 while `schemas` lists 1.5 between them.
    enum PlanWhoseStageSkipsAVersion: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [SuiteSchemaV1.self, NoteSchemaV15.self, NoteSchemaV2.self] }
        static var stages: [MigrationStage] {
            [.custom(fromVersion: SuiteSchemaV1.self, toVersion: NoteSchemaV2.self, willMigrate: nil, didMigrate: noteEveryJourney)]
        }
    }

    /// Stages through version 1.5, which `schemas` leaves out: a gap in the list.
    enum PlanWithAGapInItsVersions: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [SuiteSchemaV1.self, NoteSchemaV2.self] }
        static var stages: [MigrationStage] {
            [.custom(fromVersion: SuiteSchemaV1.self, toVersion: NoteSchemaV15.self, willMigrate: nil, didMigrate: noteEveryJourney),
             .lightweight(fromVersion: NoteSchemaV15.self, toVersion: NoteSchemaV2.self)]
        }
    }

    /// Ends at version 1.5: a container of version 2 has no step to it.
    enum PlanWithoutTheContainersVersion: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [SuiteSchemaV1.self, NoteSchemaV15.self] }
        static var stages: [MigrationStage] {
            [.custom(fromVersion: SuiteSchemaV1.self, toVersion: NoteSchemaV15.self, willMigrate: nil, didMigrate: noteEveryJourney)]
        }
    }

    /// Opens `configuration` at version 2 with `plan`, expecting a refusal naming `words`.
    static func checkPlanRefused(_ configuration: any DataStoreConfiguration, plan: any SchemaMigrationPlan.Type,
                                 words: [String], _ what: String) throws {
        do {
            _ = try ModelContainer(for: Schema(versionedSchema: NoteSchemaV2.self), migrationPlan: plan, configurations: [configuration])
            throw ConformanceFailure("\(what): the container opened (the plan's stage never ran); expected incompatibleSchema")
        } catch let error as DataStoreError {
            try checkEqual(error.code, .incompatibleSchema, "\(what): the error's code (\(error.message))")
            for word in words { try check(error.message.contains(word), "\(what): the message names \(word): \(error.message)") }
        }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase(area: "migration", name: "aPlanThatDoesNotListTheStoresVersionIsRefused", requires: .persistence) { target in
            let configuration = try MigrationCases.seed(target)
            _ = try ModelContainer(for: Schema(versionedSchema: NoteSchemaV15.self), configurations: [configuration])
            try checkPlanRefused(configuration, plan: PlanWithoutTheStoresVersion.self, words: ["1.5.0"], "a store of an unlisted version")
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NoteSchemaV15.self), configurations: [configuration]))
            let journeys = try context.fetch(FetchDescriptor<JourneyWithNote>(sortBy: [SortDescriptor(\.name)]))
            try checkEqual(journeys.map { "\($0.name) \($0.note ?? "nil")" }, ["Iceland nil", "Japan nil", "Peru nil"],
                           "the journeys after the refusal, read as version 1.5")
        },
        ConformanceCase(area: "migration", name: "aPlanWhoseStageSkipsAVersionIsRefused", requires: .persistence) { target in
            let configuration = try MigrationCases.seed(target)
            try checkPlanRefused(configuration, plan: PlanWhoseStageSkipsAVersion.self, words: ["1.0.0", "2.0.0", "1.5.0"],
                                 "a stage that skips a version")
            try checkEqual(try MigrationCases.journeysV1(configuration), MigrationCases.seeded, "the journeys after the refusal")
        },
        ConformanceCase(area: "migration", name: "aPlanWithAGapInItsVersionsIsRefused", requires: .persistence) { target in
            let configuration = try MigrationCases.seed(target)
            try checkPlanRefused(configuration, plan: PlanWithAGapInItsVersions.self, words: ["1.5.0"], "a stage to an unlisted version")
            try checkEqual(try MigrationCases.journeysV1(configuration), MigrationCases.seeded, "the journeys after the refusal")
        },
        ConformanceCase(area: "migration", name: "aPlanThatDoesNotListTheContainersVersionIsRefused", requires: .persistence) { target in
            let configuration = try MigrationCases.seed(target)
            try checkPlanRefused(configuration, plan: PlanWithoutTheContainersVersion.self, words: ["2.0.0"], "an unlisted container version")
            try checkEqual(try MigrationCases.journeysV1(configuration), MigrationCases.seeded, "the journeys after the refusal")
        },
        ConformanceCase(area: "migration", name: "aPlanThatConnectsTheVersionsRunsItsStage", requires: [.persistence, .updates]) { target in
            // The control of the refusals above: the same stage, listed step by step, runs.
            let configuration = try MigrationCases.seed(target)
            let container = try ModelContainer(for: Schema(versionedSchema: NoteSchemaV2.self), migrationPlan: PlanWithoutTheStoresVersion.self,
                                               configurations: [configuration])
            let notes = try ModelContext(container).fetch(FetchDescriptor<JourneyWithNote>()).map { $0.note ?? "nil" }
            try checkEqual(notes, ["migrated", "migrated", "migrated"], "notes the stage wrote")
        },
    ]
}
