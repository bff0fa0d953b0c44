import DataStores
import Foundation
import StoreProtocol
import StoreBuildingBlocks
import Testing

/// The table as a building block, fed what a third-party backend may send it: snapshots with
/// explicit `.null` values (the model coder leaves a `nil` optional out; a backend reading its
/// own storage may not).
@Suite struct SnapshotTableTests {
    @Model final class Member {
        @Attribute(.unique) var email: String?
        init(email: String?) { self.email = email }
    }

    func insert(_ values: [String: SnapshotValue]) -> DefaultSnapshot {
        DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Member.entityName, primaryKey: values["id"]!), values: values)
    }

    @Test func explicitNullsNeverCollide() throws {
        let schema = Schema([Member.self])
        var table = SnapshotTable(schema: schema)
        let rows = [insert(["id": .uuid(UUID()), "email": .null]), insert(["id": .uuid(UUID()), "email": .null]),
                    insert(["id": .uuid(UUID()), "email": .string("a@example.com")])]
        let outcome = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: rows), storeIdentifier: "S")
        #expect(outcome.changes.map(\.kind) == [.insert, .insert, .insert])
        #expect(table.count(of: Member.entityName) == 3)
        let again = insert(["id": .uuid(UUID()), "email": .string("a@example.com")])
        let collision = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [again]), storeIdentifier: "S")
        #expect(collision.changes.isEmpty, "the same values: no change")
        #expect(collision.result.remappedIdentifiers[again.persistentIdentifier] == rows[2].persistentIdentifier,
                "a repeated non-null value still collides")
        #expect(table.count(of: Member.entityName) == 3)
    }
}
