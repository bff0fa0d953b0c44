import Foundation
import JSONStore
import DataStores
import StoreTestSupport
import Testing

/// `Entry` with `count` stored as text: a change a lightweight migration refuses.
@Model final class EntryWithTextCount {
    static var entityName: String { Entry.entityName }
    var id = UUID()
    var title: String
    var count: String
}

/// A size, stored as a struct: no simplest value a migration could give it.
struct Size: Codable, Sendable {
    var value: Int
}

@Model final class EntryWithSize {
    static var entityName: String { Entry.entityName }
    var id = UUID()
    var title: String
    var count: Size
}

enum EntrySchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Entry.self] }
}

enum EntrySchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [EntryWithTextCount.self] }
}

enum EntrySchemaWithSize: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [EntryWithSize.self] }
}

/// `willMigrate` changes a title without saving, `didMigrate` writes the counts as text and saves.
enum EntryPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [EntrySchemaV1.self, EntrySchemaV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: EntrySchemaV1.self, toVersion: EntrySchemaV2.self,
                 willMigrate: { context in
                     for entry in try context.fetch(FetchDescriptor<Entry>()) { entry.title = "unsaved" }
                 },
                 didMigrate: { context in
                     for entry in try context.fetch(FetchDescriptor<EntryWithTextCount>()) { entry.count = "counted" }
                     try context.save()
                 })]
    }
}

enum EntrySizePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [EntrySchemaV1.self, EntrySchemaWithSize.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: EntrySchemaV1.self, toVersion: EntrySchemaWithSize.self, willMigrate: nil,
                 didMigrate: { context in
                     for entry in try context.fetch(FetchDescriptor<EntryWithSize>()) { entry.count = Size(value: 1) }
                     try context.save()
                 })]
    }
}

/// What a refused or staged migration leaves on disk.
@Suite struct JSONMigrationRefusalTests {
    func files(_ directory: URL) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            contents[name] = try Data(contentsOf: directory.appending(path: name))
        }
        return contents
    }

    /// A store of the first release has no lock file; a refused open must not make one.
    @Test func aRefusedMigrationChangesNoFileAndCreatesNone() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        try save(["a", "b"], to: try openContainer(url))
        try FileManager.default.removeItem(at: directory.appending(path: "store.json.lock"))
        let before = try files(directory)
        #expect {
            try ModelContainer(for: EntryWithTextCount.self, configurations: JSONStoreConfiguration(url: url))
        } throws: { error in
            (error as? DataStoreError)?.code == .incompatibleSchema && "\(error)".contains("Entry.count was stored as Int and is now String")
        }
        #expect(try files(directory) == before, "no file changed, none created")
    }

    @Test func whatAStageLeavesUnsavedIsNotMigrated() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        try save(["a", "b"], to: try ModelContainer(for: Schema(versionedSchema: EntrySchemaV1.self),
                                                     configurations: [JSONStoreConfiguration(url: url)]))
        let container = try ModelContainer(for: Schema(versionedSchema: EntrySchemaV2.self), migrationPlan: EntryPlan.self,
                                           configurations: [JSONStoreConfiguration(url: url)])
        let entries = try ModelContext(container).fetch(FetchDescriptor<EntryWithTextCount>(sortBy: [SortDescriptor(\.title)]))
        #expect(entries.map { "\($0.title) \($0.count)" } == ["a counted", "b counted"])
    }

    @Test func aRetypedAttributeWithoutASimplestValueNeedsADefault() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        try save(["a"], to: try ModelContainer(for: Schema(versionedSchema: EntrySchemaV1.self), configurations: [JSONStoreConfiguration(url: url)]))
        #expect {
            try ModelContainer(for: Schema(versionedSchema: EntrySchemaWithSize.self), migrationPlan: EntrySizePlan.self,
                               configurations: [JSONStoreConfiguration(url: url)])
        } throws: { error in
            (error as? DataStoreError)?.code == .incompatibleSchema && "\(error)".contains("Entry.count") && "\(error)".contains("an initial value in its declaration")
        }
        let old = try ModelContainer(for: Schema(versionedSchema: EntrySchemaV1.self), configurations: [JSONStoreConfiguration(url: url)])
        #expect(try titles(old) == ["a"])
    }
}
