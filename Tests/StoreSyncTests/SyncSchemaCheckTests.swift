import DataStores
import Foundation
import MemoryStore
@testable import StoreSync
import Testing

/// A note of another shape under the same entity name: the remote's models differ.
@Model final class SyncNoteOtherShape {
    static var entityName: String { "SyncNote" }
    var title: String
    var body: Int
    var rank: Int
    init(title: String) { self.title = title; body = 0; rank = 0 }
}

/// The replicator refuses two containers it cannot sync before it reads or writes anything.
@Suite struct SyncSchemaCheckTests {
    private func memory(_ schema: Schema) throws -> ModelContainer {
        try ModelContainer(for: schema, configurations: [MemoryStoreConfiguration(name: UUID().uuidString, schema: schema)])
    }

    private func historyCount(_ container: ModelContainer) throws -> Int {
        try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
    }

    @Test func aSideWithoutTheSyncModelsIsRefused() throws {
        let local = try memory(Schema(SyncWorld.appModels))
        let remote = try memory(SyncWorld.schema)
        let error = try #require(throws: SyncError.self) { try Replicator(local: local, remote: remote) }
        #expect(error.code == .missingSyncModels)
        #expect(error.message.contains("local"))
        #expect(try historyCount(local) == 0 && historyCount(remote) == 0)
    }

    @Test func anEntityOnOneSideOnlyIsAMismatch() throws {
        let local = try memory(SyncWorld.schema)
        let remote = try memory(Schema([SyncNote.self, SyncFolder.self, SyncTag.self] + Replicator.models))
        let error = try #require(throws: SyncError.self) { try Replicator(local: local, remote: remote) }
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("SyncAccount"))
        #expect(try historyCount(local) == 0 && historyCount(remote) == 0)
    }

    /// Sabotage checked: comparing attribute names only (not their types) accepts these.
    @Test func anAttributeOfAnotherTypeIsAMismatch() throws {
        let local = try memory(Schema([SyncNoteOtherShape.self] + Replicator.models))
        let remote = try memory(Schema([SyncNoteOtherShape.self] + Replicator.models))
        _ = try Replicator(local: local, remote: remote)   // the same shape: accepted
        let plain = try memory(Schema([SyncNote.self, SyncFolder.self, SyncTag.self] + Replicator.models))
        let error = try #require(throws: SyncError.self) { try Replicator(local: plain, remote: remote) }
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("SyncNote: the attribute body is String locally and Int remotely"))
    }

    @Test func anotherSchemaVersionIsAMismatch() throws {
        let local = try memory(Schema(SyncWorld.appModels + Replicator.models, version: Schema.Version(1, 0, 0)))
        let remote = try memory(Schema(SyncWorld.appModels + Replicator.models, version: Schema.Version(2, 0, 0)))
        let error = try #require(throws: SyncError.self) { try Replicator(local: local, remote: remote) }
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("version"))
    }

    @Test func aContainerOfTwoStoresIsRefused() throws {
        let notes = Schema([SyncNote.self, SyncFolder.self, SyncTag.self] + Replicator.models)
        let accounts = Schema([SyncAccount.self, SyncBadge.self])
        let local = try ModelContainer(for: SyncWorld.schema, configurations: [
            MemoryStoreConfiguration(name: UUID().uuidString, schema: notes),
            MemoryStoreConfiguration(name: UUID().uuidString, schema: accounts)])
        let error = try #require(throws: SyncError.self) { try Replicator(local: local, remote: try memory(SyncWorld.schema)) }
        #expect(error.code == .unsupportedStore)
    }

    @Test func oneStoreOnBothSidesIsRefused() throws {
        let container = try memory(SyncWorld.schema)
        let error = try #require(throws: SyncError.self) { try Replicator(local: container, remote: container) }
        #expect(error.code == .unsupportedStore)
    }

    /// A clock record that does not decode stops the round with a typed error, and nothing moves.
    @Test func aDamagedClockRecordIsATypedError() async throws {
        let world = try SyncWorld(.memory)
        let a = try world.replica("a")
        try a.edit { $0.insert(SyncNote(title: "n")) }
        try await a.sync()
        try a.edit { context in
            for record in try context.fetch(FetchDescriptor<SyncClockRecord>()) { record.clocks = "not json" }
        }
        try a.edit { context in
            for note in try context.fetch(FetchDescriptor<SyncNote>()) { note.rank = 9 }
        }
        let serverBefore = try historyCount(world.server)
        await #expect(throws: SyncError(.corruptSyncState, "")) { try await a.sync() }
        #expect(try historyCount(world.server) == serverBefore)
    }
}
