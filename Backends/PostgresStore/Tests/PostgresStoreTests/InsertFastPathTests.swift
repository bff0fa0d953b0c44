import Foundation
import PostgresStore
import StoreProtocol
import Testing

/// A save of new models of an entity without unique constraints writes them without reading
/// stored rows first; one whose id is stored after all sends the save the general way, which
/// makes it an update. These tests would see a fast path that skipped, duplicated or inserted it.
@Suite("Inserts without reading first", .enabled(if: TestServer.isConfigured))
struct InsertFastPathTests {
    static func row(_ n: Int, name: String) -> DefaultSnapshot {
        ColumnStorageTests.snapshot(n, ["name": .string(name), "count": .int(Int64(n)), "small": .int(0), "score": .double(0),
                                        "ratio": .double(0), "when": .date(Date(timeIntervalSinceReferenceDate: 0)),
                                        "flag": .bool(false), "tags": .array([])])
    }

    @Test("An insert of a stored id, beside a new one: the stored row updated, the new one inserted, history says so")
    func insertOfAStoredIDUpdatesIt() throws {
        let store = try ColumnStorageTests.store()
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [Self.row(1, name: "first")]))
        let token = try store.currentHistoryToken()
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(),
                                                       inserted: [Self.row(1, name: "again"), Self.row(2, name: "new")]))
        let rows = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        #expect(rows.map(\.persistentIdentifier) == [Self.row(1, name: "").persistentIdentifier, Self.row(2, name: "").persistentIdentifier])
        #expect(rows.map { $0.values["name"] } == [.string("again"), .string("new")])
        let transactions = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
        try #require(transactions.count == 1)
        let kinds = transactions[0].changes.map { change -> String in
            switch change {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
        #expect(kinds.sorted() == ["insert", "update"], "\(transactions[0].changes)")
    }

    @Test("A save of only new rows keeps their order and their history")
    func newRowsKeepOrder() throws {
        let store = try ColumnStorageTests.store()
        let rows = (0..<1_200).map { Self.row($0, name: "n\($0)") }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: Array(rows[..<700])))
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: Array(rows[700...])))
        let read = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        #expect(read.map(\.persistentIdentifier) == rows.map(\.persistentIdentifier))
        let transactions = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.map(\.changes.count) == [700, 500])
    }
}
