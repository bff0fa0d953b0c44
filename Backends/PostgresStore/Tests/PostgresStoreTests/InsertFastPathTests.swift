import Foundation
@testable import PostgresStore
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

    @Test("New models planned without SnapshotTable are written and recorded as the general way does")
    func directPlanMatchesSnapshotTable() throws {
        let direct = try ColumnStorageTests.store()
        let reference = try ColumnStorageTests.store()
        reference.plansNewRowsDirectly.value = false
        // Ids out of order, every kind of value, a request that repeats an id (the second insert
        // updates the first: the direct plan declines it), an empty save, and a large one.
        let odd = try PreparedStatementTests.filledStore().fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        let names = ColumnStorageTests.names
        let fresh = (0..<2_000).map { Self.row(($0 * 7_919) % 10_007 + 20_000, name: names[$0 % names.count]) }
        var repeated = fresh[3]
        repeated.values["name"] = .string("second")
        let saves: [DataStoreSaveChangesRequest<DefaultSnapshot>] = [
            DataStoreSaveChangesRequest(editingState: EditingState(author: "odd"), inserted: odd.reversed()),
            DataStoreSaveChangesRequest(editingState: EditingState(), inserted: Array(fresh[..<10]) + [repeated]),
            DataStoreSaveChangesRequest(editingState: EditingState(), inserted: []),
            DataStoreSaveChangesRequest(editingState: EditingState(author: "large"), inserted: Array(fresh[10...])),
        ]
        for save in saves {
            let a = try direct.save(save), b = try reference.save(save)
            #expect(a.remappedIdentifiers == b.remappedIdentifiers)
        }
        let rowsA = try direct.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        let rowsB = try reference.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        #expect(rowsA.count == odd.count + fresh.count)
        #expect(rowsA.map(\.persistentIdentifier) == rowsB.map(\.persistentIdentifier))
        for (x, y) in zip(rowsA, rowsB) { #expect(ColumnStorageTests.identical(x.values, y.values), "direct \(x.values), reference \(y.values)") }
        #expect(rowsA.first { $0.persistentIdentifier == repeated.persistentIdentifier }?.values["name"] == .string("second"))
        let historyA = try direct.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let historyB = try reference.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(historyA.map(\.transactionIdentifier) == historyB.map(\.transactionIdentifier))
        #expect(historyA.map(\.author) == historyB.map(\.author))
        #expect(historyA.map { $0.changes.map(\.description) } == historyB.map { $0.changes.map(\.description) })
        #expect(historyA.map(\.changes.count) == [odd.count, 11, fresh.count - 10])
        // The control: the direct plan made the saves it could (not the one that repeats an id),
        // and the reference made none, so the comparison above compared two different ways.
        #expect(direct.directPlansMade.value >= 2, "the direct plan made \(direct.directPlansMade.value) saves")
        #expect(reference.directPlansMade.value == 0)
    }
}
