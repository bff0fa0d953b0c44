import DataStores
import Foundation
import MemoryStore
import StoreSync
import Testing

@Model final class SchemaCrateItem {
    var label: String
    init(label: String) { self.label = label }
}

@Model final class SchemaCrateCascading {
    static var entityName: String { "SchemaCrate" }
    @Relationship(deleteRule: .cascade) var items: [SchemaCrateItem] = []
    init() {}
}

@Model final class SchemaCrateNullifying {
    static var entityName: String { "SchemaCrate" }
    @Relationship(deleteRule: .nullify) var items: [SchemaCrateItem] = []
    init() {}
}

@Model final class SchemaMemoPlain {
    static var entityName: String { "SchemaMemo" }
    var text: String
    init(text: String) { self.text = text }
}

@Model final class SchemaMemoPreserving {
    static var entityName: String { "SchemaMemo" }
    @Attribute(.preserveValueOnDeletion) var text: String
    init(text: String) { self.text = text }
}

/// What a deletion does must be the same on both sides, or a synced deletion leaves the sides
/// holding different models. Before: both pairs below were accepted.
@Suite struct SyncSchemaRulesTests {
    private func memory(_ models: [any PersistentModel.Type]) throws -> ModelContainer {
        let schema = Schema(models + Replicator.models)
        return try ModelContainer(for: schema, configurations: [MemoryStoreConfiguration(name: UUID().uuidString, schema: schema)])
    }

    /// Y32 (delete rules not compared) fails it.
    @Test func anotherDeleteRuleIsAMismatch() throws {
        _ = try Replicator(local: memory([SchemaCrateCascading.self, SchemaCrateItem.self]),
                           remote: memory([SchemaCrateCascading.self, SchemaCrateItem.self]))
        let error = try #require(throws: SyncError.self) {
            try Replicator(local: memory([SchemaCrateCascading.self, SchemaCrateItem.self]),
                           remote: memory([SchemaCrateNullifying.self, SchemaCrateItem.self]))
        }
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("SchemaCrate: the relationship items has the delete rule"))
    }

    /// Y33 (values preserved on deletion not compared) fails it.
    @Test func preservingAValueOnDeletionOnOneSideIsAMismatch() throws {
        _ = try Replicator(local: memory([SchemaMemoPreserving.self]), remote: memory([SchemaMemoPreserving.self]))
        let error = try #require(throws: SyncError.self) {
            try Replicator(local: memory([SchemaMemoPlain.self]), remote: memory([SchemaMemoPreserving.self]))
        }
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("SchemaMemo: the values preserved on deletion are [] locally and [\"text\"] remotely"))
    }
}
