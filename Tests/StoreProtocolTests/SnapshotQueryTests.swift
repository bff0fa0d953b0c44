import DataStores
import Foundation
import StoreProtocol
import Testing

/// `SnapshotQuery` is public for backend authors that filter snapshots themselves, and the
/// context's fallback for stores that throw `preferInMemoryFilter` / `preferInMemorySort`. The
/// backends here answer every query on stored values, so its paths are checked directly.
@Suite struct SnapshotQueryTests {
    @Model final class Row {
        var id: UUID
        var text: String
        var ref: UUID
        var rank: Int?
        init(id: UUID = UUID(), text: String, ref: UUID = UUID(), rank: Int? = nil) {
            self.id = id
            self.text = text
            self.ref = ref
            self.rank = rank
        }
    }

    private func snapshots(_ rows: [Row]) throws -> [DefaultSnapshot] {
        try rows.map { DefaultSnapshot(persistentIdentifier: $0.persistentModelID, values: try $0.storedValues()) }
    }

    private func texts(_ result: [DefaultSnapshot]) -> [String] {
        result.map { if case .string(let text)? = $0.values["text"] { text } else { "?" } }
    }

    @Test func withoutPredicateOrSortOffsetAndLimitStillApply() throws {
        let rows = try snapshots(["a", "b", "c", "d", "e"].map { Row(text: $0) })
        var descriptor = FetchDescriptor<Row>()
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        #expect(texts(try SnapshotQuery.evaluate(descriptor, over: rows)) == ["b", "c"])
    }

    @Test func anIDLookupStillPages() throws {
        let target = Row(text: "t")
        let rows = try snapshots([Row(text: "x"), target])
        let id = target.id
        var descriptor = FetchDescriptor<Row>(predicate: #Predicate { $0.id == id })
        #expect(texts(try SnapshotQuery.evaluate(descriptor, over: rows)) == ["t"])
        descriptor.fetchOffset = 1
        #expect(try SnapshotQuery.evaluate(descriptor, over: rows).isEmpty)
    }

    /// Another UUID attribute compared with a value that is some row's id is no id lookup.
    @Test func anotherUUIDAttributeIsNotReadAsTheID() throws {
        let a = Row(text: "a")
        let b = Row(text: "b", ref: a.id)
        let rows = try snapshots([a, b])
        let value = a.id
        #expect(SnapshotQuery.primaryKey(selectedBy: #Predicate<Row> { $0.ref == value }) == nil)
        #expect(texts(try SnapshotQuery.evaluate(FetchDescriptor<Row>(predicate: #Predicate { $0.ref == value }), over: rows)) == ["b"])
    }

    @Test func aPredicateThatThrowsIsAnError() throws {
        let rows = try snapshots([Row(text: "a", rank: nil)])
        let descriptor = FetchDescriptor<Row>(predicate: #Predicate { $0.rank! > 1 })
        let error = try #require(throws: DataStoreError.self) { try SnapshotQuery.evaluate(descriptor, over: rows) }
        #expect(error.code == .invalidPredicate)
        #expect(throws: DataStoreError.self) { try SnapshotQuery.filter(rows, by: descriptor.predicate) }
    }

    @Test func sortsHonourTheirOrderAndTies() throws {
        let rows = try snapshots([Row(text: "b", rank: 1), Row(text: "a", rank: 2), Row(text: "c", rank: 1)])
        let descriptor = FetchDescriptor<Row>(
            predicate: #Predicate { $0.text != "z" },
            sortBy: [SortDescriptor(\.rank, order: .reverse), SortDescriptor(\.text, order: .reverse)])
        #expect(texts(try SnapshotQuery.evaluate(descriptor, over: rows)) == ["a", "c", "b"])
    }
}
