import DataStores
import Foundation
import StoreProtocol
import StoreBuildingBlocks
import Testing

/// The table's equality indexes: after every way a table changes (inserts, updates, collisions
/// that become updates, deletes, a failed save that is undone, replayed writes and removals,
/// erasing), each index must return, for each value, exactly the rows the query's own `==`
/// selects on stored values, plus the rows whose value does not read as the attribute's type.
@Suite struct AttributeIndexTests {
    @Model final class Person {
        #Index<Person>([\.name], [\.score, \.count], [\.count])
        var name: String
        @Attribute(.unique) var email: String?
        var score: Double
        var count: Int
        init(name: String, email: String?, score: Double, count: Int) {
            self.name = name
            self.email = email
            self.score = score
            self.count = count
        }
    }

    let schema = Schema([Person.self])
    var entity: Schema.Entity { schema.entities[0] }

    func row(_ id: Int, _ values: [String: SnapshotValue]) -> DefaultSnapshot {
        let key = SnapshotValue.uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", id))!)
        var values = values
        values["id"] = key
        return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Person.entityName, primaryKey: key), values: values)
    }

    func save(_ table: inout SnapshotTable, inserted: [DefaultSnapshot] = [], updated: [DefaultSnapshot] = [], deleted: [DefaultSnapshot] = []) throws {
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: inserted, updated: updated, deleted: deleted),
                            storeIdentifier: "S")
    }

    /// Constants to look up besides the rows' own values: ones that equal stored values only
    /// by the query's `==` (precomposed and decomposed é, -0.0 and 0.0), and ones that equal none.
    let probes: [String: [SnapshotValue]] = [
        "name": [.string("caf\u{E9}"), .string("cafe\u{301}"), .string("nobody")],
        "score": [.double(0), .double(-0.0), .double(2), .double(.nan), .double(7.5)],
        "count": [.int(3), .int(-1), .int(Int64.max), .null],
        "email": [.null, .string("a@x"), .string("nobody@x")],
    ]

    /// Each index against the query's `==` evaluated on every row.
    func expectIndexesAgree(_ table: SnapshotTable, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        let rows = table.snapshots(of: Person.entityName)
        let indexed = table.indexedAttributes(of: Person.entityName)
        #expect(Set(indexed) == ["name", "score", "count", "email"], sourceLocation: sourceLocation)
        for name in indexed {
            guard let attribute = entity.queryAttributes[name] else {
                Issue.record("\(name) has no query attribute", sourceLocation: sourceLocation)
                continue
            }
            var constants = probes[name] ?? []
            for row in rows { if let value = attribute.value(in: row.values) { constants.append(value) } }
            for constant in constants {
                let expected = Set(rows.filter { row in
                    guard let value = attribute.value(in: row.values) else { return true }   // unreadable: the model decides
                    return QueryComparison.equal.evaluate(value, constant) == true
                }.map(\.persistentIdentifier.primaryKey))
                let found = table.indexLookup(Person.entityName, attribute: name, equalTo: constant)
                #expect(found.map { Set($0) } == expected, "\(comment): \(name) == \(constant)", sourceLocation: sourceLocation)
                #expect(found.map { $0.count == Set($0).count } ?? true, "\(comment): \(name) == \(constant) lists a row twice",
                        sourceLocation: sourceLocation)
            }
        }
    }

    @Test func indexesFollowEverySavePath() throws {
        var table = SnapshotTable(schema: schema)
        expectIndexesAgree(table, "empty")
        let rows = [
            row(1, ["name": .string("caf\u{E9}"), "email": .string("a@x"), "score": .double(0), "count": .int(3)]),
            row(2, ["name": .string("cafe\u{301}"), "score": .double(-0.0), "count": .double(3)]),   // 3.0 reads as Int 3
            row(3, ["name": .string("b"), "email": .null, "score": .int(2), "count": .int(Int64.max)]),   // Int 2 reads as 2.0
            row(4, ["name": .string("b"), "score": .double(.nan), "count": .string("x")]),   // "x" is no Int
            row(5, ["name": .string("c"), "email": .string("c@x"), "score": .double(2), "count": .double(3.5)]),   // no Int
        ]
        try save(&table, inserted: rows)
        expectIndexesAgree(table, "after inserts")

        try save(&table, updated: [row(1, ["name": .string("b"), "email": .string("a@x"), "score": .double(7.5), "count": .int(-1)]),
                                   row(4, ["name": .string("d"), "score": .double(0), "count": .int(3)])])
        expectIndexesAgree(table, "after updates")

        // An insert that matches row 5's email updates row 5.
        try save(&table, inserted: [row(9, ["name": .string("e"), "email": .string("c@x"), "score": .double(1), "count": .int(1)])])
        #expect(table.count(of: Person.entityName) == 5)
        expectIndexesAgree(table, "after a collision became an update")

        try save(&table, deleted: [rows[0], rows[2]])
        expectIndexesAgree(table, "after deletes")
        // The same ids again with other values: a key left behind by the delete would show.
        try save(&table, inserted: [row(1, ["name": .string("z"), "score": .double(4), "count": .int(4)]),
                                    row(3, ["name": .string("y"), "email": .string("y@x"), "score": .double(5), "count": .int(5)])])
        expectIndexesAgree(table, "after reinserting deleted ids")
    }

    @Test func aFailedSaveLeavesTheIndexesAsTheyWere() throws {
        var table = SnapshotTable(schema: schema)
        try save(&table, inserted: [row(1, ["name": .string("a"), "email": .string("a@x"), "score": .double(1), "count": .int(1)]),
                                    row(2, ["name": .string("b"), "email": .string("b@x"), "score": .double(2), "count": .int(2)])])
        let before = ["a", "b", "c", "d"].map { table.indexLookup(Person.entityName, attribute: "name", equalTo: .string($0)).map(Set.init) }
        // An insert, an update and a delete that go through, then an update that collides on email.
        #expect(throws: DataStoreError.self) {
            try save(&table,
                     inserted: [row(3, ["name": .string("c"), "score": .double(3), "count": .int(3)])],
                     updated: [row(1, ["name": .string("d"), "email": .string("a@x"), "score": .double(4), "count": .int(4)]),
                               row(2, ["name": .string("b"), "email": .string("a@x"), "score": .double(2), "count": .int(2)])])
        }
        #expect(table.count(of: Person.entityName) == 2)
        let after = ["a", "b", "c", "d"].map { table.indexLookup(Person.entityName, attribute: "name", equalTo: .string($0)).map(Set.init) }
        #expect(after == before)
        expectIndexesAgree(table, "after a failed save")

        try save(&table, inserted: [row(4, ["name": .string("q"), "email": .string("q@x"), "score": .double(9), "count": .int(9)])],
                 deleted: [row(1, [:])])
        #expect(throws: DataStoreError.self) {
            try save(&table, inserted: [row(5, ["name": .string("b"), "score": .double(2), "count": .int(2)])],
                     updated: [row(2, ["name": .string("r"), "email": .string("q@x"), "score": .double(2), "count": .int(2)])])
        }
        #expect(table.indexLookup(Person.entityName, attribute: "name", equalTo: .string("b"))?.count == 1)
        expectIndexesAgree(table, "after a delete, then a failed save")
    }

    /// A failed save leaves every row in its place: the order of unsorted fetches and of ties in
    /// a sort is the order before the save (found by an adversary: the undo re-appended rows).
    @Test func aFailedSaveLeavesTheOrderOfRowsAsItWas() throws {
        var table = SnapshotTable(schema: schema)
        let rows = (1...5).map { row($0, ["name": .string("same"), "email": .string("\($0)@x"), "score": .double(1), "count": .int(1)]) }
        try save(&table, inserted: rows)
        let order = table.snapshots(of: Person.entityName).map(\.persistentIdentifier)
        func firstByName() throws -> [PersistentIdentifier] {
            var descriptor = FetchDescriptor<Person>(sortBy: [SortDescriptor(\.name)])
            descriptor.fetchLimit = 2
            let request = DataStoreFetchRequest(descriptor: descriptor)
            return try QueryEvaluator.fetch(request, over: table.candidates(for: request)).map(\.persistentIdentifier)
        }
        #expect(try firstByName() == Array(order.prefix(2)))
        // An update, an insert, then an update that collides: undone.
        #expect(throws: DataStoreError.self) {
            try save(&table, inserted: [row(9, ["name": .string("same"), "score": .double(1), "count": .int(1)])],
                     updated: [row(1, ["name": .string("same"), "email": .string("1@x"), "score": .double(2), "count": .int(1)]),
                               row(2, ["name": .string("same"), "email": .string("3@x"), "score": .double(1), "count": .int(1)])])
        }
        #expect(table.snapshots(of: Person.entityName).map(\.persistentIdentifier) == order)
        #expect(try firstByName() == Array(order.prefix(2)))
        // Deletes, then a row of an entity the table does not hold: the deletes are undone in place.
        let stranger = DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: "Nobody", primaryKey: .int(1)), values: [:])
        #expect(throws: DataStoreError.self) {
            try save(&table, deleted: [rows[0], rows[2], stranger])
        }
        #expect(table.snapshots(of: Person.entityName).map(\.persistentIdentifier) == order)
        #expect(try firstByName() == Array(order.prefix(2)))
        expectIndexesAgree(table, "after failed saves")
    }

    @Test func replayedWritesRemovalsAndErasingKeepIndexesInStep() throws {
        // What a JSON store does when it reads a journal another process wrote, and on erase.
        var table = SnapshotTable(schema: schema)
        try table.write(row(1, ["name": .string("a"), "score": .double(1), "count": .int(1)]))
        try table.write(row(2, ["name": .string("a"), "score": .double(1), "count": .int(1)]))
        try table.write(row(1, ["name": .string("b"), "score": .double(-0.0), "count": .int(1)]))
        expectIndexesAgree(table, "after replayed writes")
        table.remove(PersistentIdentifier(entityName: Person.entityName, primaryKey: row(2, [:]).persistentIdentifier.primaryKey))
        expectIndexesAgree(table, "after a replayed removal")
        table.removeAll()
        expectIndexesAgree(table, "after erasing")
        #expect(table.indexLookup(Person.entityName, attribute: "name", equalTo: .string("b")) == [])
    }

    @Test func manyRowsSharingAValueComeAndGo() throws {
        var table = SnapshotTable(schema: schema)
        let rows = (0..<200).map { row($0, ["name": .string("n\($0 % 3)"), "score": .double(Double($0 % 2)), "count": .int(Int64($0))]) }
        try save(&table, inserted: rows)
        try save(&table, deleted: Array(rows[0..<150]))
        expectIndexesAgree(table, "after deleting most")
        try save(&table, updated: (150..<200).map { row($0, ["name": .string("same"), "score": .double(0), "count": .int(0)]) })
        expectIndexesAgree(table, "after giving the rest one value")
        #expect(table.indexLookup(Person.entityName, attribute: "name", equalTo: .string("same"))?.count == 50)
    }

    /// The index narrows what a fetch evaluates, and the fetch's answer is the evaluation's.
    @Test func fetchesReadOnlyTheRowsAnIndexFinds() throws {
        var table = SnapshotTable(schema: schema)
        let rows = (0..<1_000).map { row($0, ["name": .string("n\($0 % 100)"), "score": .double(Double($0 % 7)), "count": .int(Int64($0))]) }
        try save(&table, inserted: rows)
        func check(_ predicate: Predicate<Person>, sortBy: [SortDescriptor<Person>] = [], candidates: Int, _ comment: Comment) throws {
            let request = DataStoreFetchRequest(descriptor: FetchDescriptor(predicate: predicate, sortBy: sortBy))
            let found = table.candidates(for: request)
            #expect(found.count == candidates, comment)
            let all = table.snapshots(of: Person.entityName)
            #expect(found.map(\.persistentIdentifier) == all.filter { row in found.contains { $0.persistentIdentifier == row.persistentIdentifier } }
                .map(\.persistentIdentifier), "\(comment): in insertion order")
            #expect(try QueryEvaluator.fetch(request, over: found).map(\.persistentIdentifier)
                    == (try SnapshotQuery.evaluate(request.descriptor, over: all)).map(\.persistentIdentifier), comment)
            #expect(try QueryEvaluator.count(request, over: found) == (try SnapshotQuery.evaluate(request.descriptor, over: all)).count, comment)
        }
        let n5 = "n5", counts = [3, 500, 2_000], names = ["n1", "n2"]
        try check(#Predicate { $0.name == n5 }, candidates: 10, "an indexed equality")
        try check(#Predicate { $0.score > 2 && $0.count == 500 }, candidates: 1, "an indexed equality under &&")
        try check(#Predicate { $0.name == n5 && $0.count == 105 }, candidates: 1, "the more selective index")
        try check(#Predicate { counts.contains($0.count) }, candidates: 2, "contains")
        try check(#Predicate { names.contains($0.name) }, sortBy: [SortDescriptor(\.count, order: .reverse)], candidates: 20, "contains, sorted")
        try check(#Predicate { $0.score == 1 || $0.name == n5 }, candidates: 1_000, "|| scans")
        try check(#Predicate { $0.score == 1 }, candidates: 143, "a value of a seventh of the rows")
        let most = (0..<60).map { "n\($0)" }
        try check(#Predicate { most.contains($0.name) }, candidates: 1_000, "values of most rows: a scan is cheaper")
    }
}
