import Foundation
import JSONStore
import DataStores
import StoreTestSupport
import Testing

/// `Entry` with an optional note: a change a lightweight migration makes, so that a plan whose
/// stage cannot run would otherwise open silently.
@Model final class EntryWithNote {
    static var entityName: String { Entry.entityName }
    var id = UUID()
    var title: String
    var count: Int
    var note: String?
}

enum EntrySchemaV15: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 5, 0)
    static var models: [any PersistentModel.Type] { [Entry.self] }
}

enum EntryNoteSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [EntryWithNote.self] }
}

/// Plans that do not lead from the store's version to the container's stage by stage.
enum GappedPlan: String, CaseIterable, Sendable {
    case stageSkipsAVersion, stageToAnUnlistedVersion, storesVersionUnlisted, containersVersionUnlisted

    static let note: @Sendable (ModelContext) throws -> Void = { context in
        for entry in try context.fetch(FetchDescriptor<EntryWithNote>()) { entry.note = "migrated" }
        try context.save()
    }

    enum SkipsAVersion: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [EntrySchemaV1.self, EntrySchemaV15.self, EntryNoteSchemaV2.self] }
        static var stages: [MigrationStage] {
            [.custom(fromVersion: EntrySchemaV1.self, toVersion: EntryNoteSchemaV2.self, willMigrate: nil, didMigrate: note)]
        }
    }

    enum StageToAnUnlistedVersion: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [EntrySchemaV1.self, EntryNoteSchemaV2.self] }
        static var stages: [MigrationStage] {
            [.custom(fromVersion: EntrySchemaV1.self, toVersion: EntrySchemaV15.self, willMigrate: nil, didMigrate: nil),
             .custom(fromVersion: EntrySchemaV15.self, toVersion: EntryNoteSchemaV2.self, willMigrate: nil, didMigrate: note)]
        }
    }

    enum FromVersion1: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [EntrySchemaV1.self, EntryNoteSchemaV2.self] }
        static var stages: [MigrationStage] {
            [.custom(fromVersion: EntrySchemaV1.self, toVersion: EntryNoteSchemaV2.self, willMigrate: nil, didMigrate: note)]
        }
    }

    enum EndsAtVersion15: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [EntrySchemaV1.self, EntrySchemaV15.self] }
        static var stages: [MigrationStage] { [.lightweight(fromVersion: EntrySchemaV1.self, toVersion: EntrySchemaV15.self)] }
    }

    var plan: any SchemaMigrationPlan.Type {
        switch self {
        case .stageSkipsAVersion: SkipsAVersion.self
        case .stageToAnUnlistedVersion: StageToAnUnlistedVersion.self
        case .storesVersionUnlisted: FromVersion1.self
        case .containersVersionUnlisted: EndsAtVersion15.self
        }
    }

    /// The version the store holds when the plan is applied.
    var stored: any VersionedSchema.Type { self == .storesVersionUnlisted ? EntrySchemaV15.self : EntrySchemaV1.self }

    /// Words the refusal names: the missing step.
    var named: [String] {
        switch self {
        case .stageSkipsAVersion: ["1.0.0", "2.0.0", "skips"]
        case .stageToAnUnlistedVersion: ["1.5.0", "does not list"]
        case .storesVersionUnlisted: ["1.5.0", "which the store holds"]
        case .containersVersionUnlisted: ["2.0.0", "which this container opens"]
        }
    }
}

@Suite struct MigrationPlanGapTests {
    @Test(arguments: GappedPlan.allCases)
    func aPlanWithoutAStepIsRefusedAndChangesNoByte(_ gapped: GappedPlan) throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        try save(["a", "b"], to: try ModelContainer(for: Schema(versionedSchema: EntrySchemaV1.self), configurations: [JSONStoreConfiguration(url: url)]))
        _ = try ModelContainer(for: Schema(versionedSchema: gapped.stored), configurations: [JSONStoreConfiguration(url: url)])
        let before = try JSONMigrationRefusalTests().files(directory)
        #expect {
            try ModelContainer(for: Schema(versionedSchema: EntryNoteSchemaV2.self), migrationPlan: gapped.plan,
                               configurations: [JSONStoreConfiguration(url: url)])
        } throws: { error in
            guard let error = error as? DataStoreError, error.code == .incompatibleSchema else { return false }
            return gapped.named.allSatisfy { error.message.contains($0) }
        }
        #expect(try JSONMigrationRefusalTests().files(directory) == before, "no byte of the store changed")
        let old = try ModelContainer(for: Schema(versionedSchema: gapped.stored), configurations: [JSONStoreConfiguration(url: url)])
        #expect(try titles(old) == ["a", "b"])
    }

    /// The same stage in a plan that lists every step runs.
    @Test func aPlanThatConnectsTheVersionsRunsItsStage() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        try save(["a"], to: try ModelContainer(for: Schema(versionedSchema: EntrySchemaV1.self), configurations: [JSONStoreConfiguration(url: url)]))
        let container = try ModelContainer(for: Schema(versionedSchema: EntryNoteSchemaV2.self), migrationPlan: GappedPlan.FromVersion1.self,
                                           configurations: [JSONStoreConfiguration(url: url)])
        #expect(try ModelContext(container).fetch(FetchDescriptor<EntryWithNote>()).map(\.note) == ["migrated"])
    }
}
