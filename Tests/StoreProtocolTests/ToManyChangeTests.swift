import Foundation
import StoreProtocol
import Testing

/// `ToManyChange`: the members a save added and removed, applied to the stored members.
@Suite struct ToManyChangeTests {
    let a = SnapshotValue.uuid(UUID()), b = SnapshotValue.uuid(UUID()), c = SnapshotValue.uuid(UUID()), d = SnapshotValue.uuid(UUID())

    @Test func theChangeIsWhatWasAddedAndRemoved() {
        let change = ToManyChange(from: .array([a, b, c]), to: .array([d, c, a]))
        #expect(change == ToManyChange(added: [d], removed: [b]))
        #expect(ToManyChange(from: nil, to: .array([a])) == ToManyChange(added: [a]))
        #expect(ToManyChange(from: .array([a]), to: .null) == ToManyChange(removed: [a]))
        #expect(ToManyChange(from: .array([a, b]), to: .array([b, a])) == ToManyChange(), "a reorder changes no membership")
    }

    @Test func applyingKeepsStoredOrderAndWhatAnotherSaveChanged() {
        // Stored meanwhile: another save added c and removed b.
        let change = ToManyChange(added: [d, a], removed: [b])
        #expect(change.apply(to: .array([a, c])) == .array([a, c, d]), "a already stored; d appended; c kept")
        #expect(change.apply(to: nil) == .array([d, a]))
        #expect(ToManyChange(added: [d, d]).apply(to: .array([])) == .array([d]), "a member is listed once")
    }

    @Test func memberChangesWithoutChangedAttributesAreRefused() {
        let id = PersistentIdentifier(entityName: "Folder", primaryKey: a)
        let request = DataStoreSaveChangesRequest<DefaultSnapshot>(
            editingState: EditingState(), updated: [DefaultSnapshot(persistentIdentifier: id, values: [:])],
            toManyChanges: [id: ["notes": ToManyChange(added: [b])]])
        #expect(throws: DataStoreError.self) { try request.checkUpdatedAttributes() }
    }
}
