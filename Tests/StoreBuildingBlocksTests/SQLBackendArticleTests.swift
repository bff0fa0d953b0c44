import DataStores
import Foundation
import StoreBuildingBlocks
import StoreProtocol
import Testing

// The samples of the Writing-a-backend article's "A SQL backend" section, as written there
// (Tools/docs/check-samples.py holds them to it), and tests that run them against a database
// stand-in: saves the SQL way must leave the rows a `SnapshotTable` holding everything leaves.

// MARK: The article's samples

/// The `_uN` columns of a row: per unique constraint, the canonical key of its values, or `NULL`
/// (`nil`) when one of them is `nil` or holds a NaN; neither collides with anything.
func uniqueColumns(of values: [String: SnapshotValue], entity: Schema.Entity) -> [String?] {
    entity.uniqueConstraints.indices.map { constraint in
        entity.uniqueKey(constraint, in: values).flatMap { CanonicalKey($0) }?.text
    }
}

/// What a save needs of the database, inside one transaction: your driver's statements.
protocol SQLRows {
    /// `SELECT … WHERE _pk = ANY($1) OR _u0 = ANY($2) OR …`: the stored rows of an entity with
    /// these primary keys or these unique keys (`_uN` texts, by constraint).
    func rows(of entity: Schema.Entity, primaryKeys: [SnapshotValue], uniqueKeys: [[String]]) throws -> [DefaultSnapshot]
    /// `INSERT … ON CONFLICT (_pk) DO UPDATE`: the row as it is now, `_uN` from `uniqueColumns`.
    mutating func write(_ row: DefaultSnapshot, entity: Schema.Entity) throws
    /// `DELETE … WHERE _pk = $1`.
    mutating func delete(_ identifier: PersistentIdentifier) throws
    /// `INSERT INTO _history …`: the next transaction number, under a lock held to the commit.
    mutating func appendHistory(author: String?, changes: [HistoryRecord.Change]) throws
}

/// A save, inside the database transaction that commits it: the stored rows it can touch, read
/// into a table of their own; the save applied there as every store applies it (unique
/// constraints, an insert that matches a stored row updates it, the history changes); the rows
/// it changed written back.
func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>, schema: Schema, storeIdentifier: String,
          database: inout some SQLRows) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
    var lookups: [String: (keys: [SnapshotValue], unique: [[String]])] = [:]
    for snapshot in request.inserted + request.updated + request.deleted {
        let id = snapshot.persistentIdentifier
        guard let entity = schema.entity(named: id.entityName) else { continue }   // apply throws .unknownEntity
        lookups[id.entityName, default: ([], entity.uniqueConstraints.map { _ in [] })].keys.append(id.primaryKey)
        guard request.inserted.contains(where: { $0.persistentIdentifier == id }) else { continue }
        for (constraint, key) in uniqueColumns(of: snapshot.values, entity: entity).enumerated() {
            if let key { lookups[id.entityName]?.unique[constraint].append(key) }
        }
    }
    var touched = SnapshotTable(schema: schema, keepsAttributeIndexes: false)
    for (entityName, lookup) in lookups.sorted(by: { $0.key < $1.key }) {
        guard let entity = schema.entity(named: entityName) else { continue }
        for row in try database.rows(of: entity, primaryKeys: lookup.keys, uniqueKeys: lookup.unique) {
            try touched.write(row)
        }
    }
    let outcome = try touched.apply(request, storeIdentifier: storeIdentifier)
    var written: Set<PersistentIdentifier> = []
    for change in outcome.changes where written.insert(change.persistentIdentifier).inserted {
        if let row = touched.snapshot(for: change.persistentIdentifier), let entity = schema.entity(named: change.entityName) {
            try database.write(row, entity: entity)
        } else {
            try database.delete(change.persistentIdentifier)
        }
    }
    if !outcome.changes.isEmpty {
        try database.appendHistory(author: request.editingState.author, changes: outcome.changes)
    }
    return outcome.result
}

/// The operands of a top-level `&&`: each one a row must satisfy.
func conjuncts(_ expression: QueryExpression) -> [QueryExpression] {
    if case let .and(lhs, rhs) = expression { return conjuncts(lhs) + conjuncts(rhs) }
    return [expression]
}

/// A fetch: the conjuncts that render select a superset of the rows in SQL (a row SQL would not
/// read as Swift does, `_exact = false`, always comes along), and `QueryEvaluator` decides on
/// those rows exactly, sorts and pages.
func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>, render: (QueryExpression) -> String?,
                               select: (_ whereClause: String?) throws -> [DefaultSnapshot]) throws -> [DefaultSnapshot] {
    var rendered: [String] = []
    switch request.query.filter {
    case .expression(let filter), .narrowed(let filter, _): rendered = conjuncts(filter).compactMap(render)
    case .all, .untranslated: break
    }
    let whereClause = rendered.isEmpty ? nil : "NOT _exact OR (\(rendered.joined(separator: " AND ")))"
    return try QueryEvaluator.fetch(request, over: select(whereClause))
}

/// History from the tables: the counter, the watermark and the transactions after the token's
/// position, read in one statement (one snapshot of the database), as a `HistoryLog`, which
/// checks the token (`.historyTokenExpired`, `.foreignToken`) and applies the descriptor.
func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, storeIdentifier: String, schema: Schema,
                  read: (_ after: Int64) throws -> (records: [HistoryRecord], last: Int64, expiredThrough: Int64)
) throws -> [DefaultHistoryTransaction] {
    let stored = try read(descriptor.after?.positions[storeIdentifier] ?? 0)
    let log = HistoryLog(records: stored.records, lastTransactionNumber: stored.last, expiredThrough: stored.expiredThrough)
    return try log.fetch(descriptor, storeIdentifier: storeIdentifier, schema: schema)
}

/// A collation a database calls back with two strings' UTF-8 bytes (SQLite's
/// `sqlite3_create_collation_v2`): Swift's own `==` and `<`, so that `=`, `<` and `ORDER BY`
/// in SQL compare as the predicate does, whatever the strings' normalization.
func swiftCollation(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
    let (a, b) = (String(decoding: lhs, as: UTF8.self), String(decoding: rhs, as: UTF8.self))
    return a == b ? 0 : a < b ? -1 : 1
}

// MARK: Tests

@Suite struct SQLBackendArticleTests {
    @Model final class Member {
        @Attribute(.unique) var email: String?
        var rating = 0
        init(email: String?, rating: Int = 0) {
            self.email = email
            self.rating = rating
        }
    }

    /// A database in memory that behaves as the article's tables: rows by `_pk`, a `UNIQUE`
    /// `_u0` column, history rows. It finds rows only as the SQL the protocol names would.
    struct TablesInMemory: SQLRows {
        var rows: [PersistentIdentifier: (row: DefaultSnapshot, unique: [String?])] = [:]
        var history = HistoryLog()

        func rows(of entity: Schema.Entity, primaryKeys: [SnapshotValue], uniqueKeys: [[String]]) throws -> [DefaultSnapshot] {
            rows.values.filter { stored in
                primaryKeys.contains(stored.row.persistentIdentifier.primaryKey)
                    || stored.unique.enumerated().contains { constraint, key in key.map { uniqueKeys[constraint].contains($0) } ?? false }
            }.map(\.row)
        }

        mutating func write(_ row: DefaultSnapshot, entity: Schema.Entity) throws {
            let unique = uniqueColumns(of: row.values, entity: entity)
            for (id, stored) in rows where id != row.persistentIdentifier {
                for (mine, theirs) in zip(unique, stored.unique) where mine != nil && mine == theirs {
                    throw DataStoreError(.constraintViolation, "UNIQUE _uN: \(mine!)")
                }
            }
            rows[row.persistentIdentifier] = (row, unique)
        }

        mutating func delete(_ identifier: PersistentIdentifier) throws { rows[identifier] = nil }

        mutating func appendHistory(author: String?, changes: [HistoryRecord.Change]) throws {
            _ = history.append(author: author, changes: changes)
        }
    }

    let schema = Schema([Member.self])

    func row(_ id: UUID, _ values: [String: SnapshotValue]) -> DefaultSnapshot {
        var values = values
        values["id"] = .uuid(id)
        return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Member.entityName, primaryKey: .uuid(id)), values: values)
    }

    /// Saves the SQL way and into a table holding everything: the same rows, history and results.
    @Test func savesLeaveTheRowsATableHoldingEverythingLeaves() throws {
        var database = TablesInMemory()
        var everything = SnapshotTable(schema: schema)
        let (a, b, c) = (UUID(), UUID(), UUID())
        let requests: [DataStoreSaveChangesRequest<DefaultSnapshot>] = [
            DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [
                row(a, ["email": .string("café@example.com"), "rating": .int(1)]),
                row(b, ["email": .null, "rating": .int(2)]),
            ]),
            // The same email decomposed, under another id: an update of a's row (SwiftData upserts).
            DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [
                row(c, ["email": .string("cafe\u{301}@example.com"), "rating": .int(3)]),
            ]),
            DataStoreSaveChangesRequest(editingState: EditingState(), updated: [row(b, ["email": .string("b@example.com"), "rating": .int(4)])]),
            DataStoreSaveChangesRequest(editingState: EditingState(), deleted: [row(a, [:])]),
            DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [row(c, ["email": .string("café@example.com"), "rating": .int(5)])]),
        ]
        var changes: [[HistoryRecord.Change]] = []
        for request in requests {
            let sql = try save(request, schema: schema, storeIdentifier: "S", database: &database)
            let memory = try everything.apply(request, storeIdentifier: "S")
            #expect(sql.remappedIdentifiers == memory.result.remappedIdentifiers)
            let stored = Dictionary(uniqueKeysWithValues: database.rows.map { ($0.key, $0.value.row.values) })
            let expected = Dictionary(uniqueKeysWithValues: everything.snapshots(of: Member.entityName).map { ($0.persistentIdentifier, $0.values) })
            #expect(stored == expected)
            changes.append(memory.changes)
        }
        #expect(database.rows.count == 2)
        #expect(database.rows[PersistentIdentifier(entityName: Member.entityName, primaryKey: .uuid(a))] == nil)
        #expect(database.history.records.map(\.changes) == changes)
        #expect(changes.allSatisfy { !$0.isEmpty })
    }

    /// An update that takes a unique value another stored row holds, one the save did not read:
    /// the database's `UNIQUE` column refuses it (PostgresStore's `_uN` are `UNIQUE DEFERRABLE`).
    @Test func anUpdateCollidingWithAnUnreadRowIsRefused() throws {
        var database = TablesInMemory()
        let (a, b) = (UUID(), UUID())
        _ = try save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [
            row(a, ["email": .string("x"), "rating": .int(0)]), row(b, ["email": .string("y"), "rating": .int(0)]),
        ]), schema: schema, storeIdentifier: "S", database: &database)
        #expect(throws: DataStoreError.self) {
            try save(DataStoreSaveChangesRequest(editingState: EditingState(), updated: [row(b, ["email": .string("x"), "rating": .int(0)])]),
                     schema: schema, storeIdentifier: "S", database: &database)
        }
    }

    /// The rendered conjuncts narrow; rows SQL cannot read exactly come along; the evaluator decides.
    @Test func aFetchNarrowsInSQLAndDecidesInSwift() throws {
        let rows = (0..<20).map { row(UUID(), ["email": .string("m\($0)@example.com"), "rating": .int(Int64($0 % 7))]) }
        let inexact = Set(rows.prefix(3).map(\.persistentIdentifier))   // as if they held a NaN or a non-NFC string
        let request = DataStoreFetchRequest(descriptor: FetchDescriptor<Member>(
            predicate: #Predicate { $0.rating > 2 && $0.email?.contains("1") == true }, sortBy: [SortDescriptor(\.rating)]))
        var clause: String?
        let fetched = try fetch(request, render: { expression in
            if case .comparison(.attribute(let attribute), .greaterThan, .constant(.int(let value))) = expression {
                return "\"\(attribute.name)\" > \(value)"
            }
            return nil   // `contains` on an optional: left to the evaluator
        }, select: { whereClause in
            clause = whereClause
            return rows.filter { inexact.contains($0.persistentIdentifier) || ($0.values["rating"]?.numericValue ?? 0) > 2 }
        })
        #expect(clause == "NOT _exact OR (\"rating\" > 2)")
        let expected = try SnapshotQuery.evaluate(request.descriptor, over: rows)
        #expect(fetched.map(\.persistentIdentifier) == expected.map(\.persistentIdentifier))
        #expect(!expected.isEmpty)
    }

    @Test func historyIsReadAfterTheTokenAndTheTokenChecked() throws {
        let records = (3...5).map { HistoryRecord(transactionNumber: $0, author: nil, timestamp: Date(), changes: [
            HistoryRecord.Change(kind: .insert, entityName: Member.entityName, primaryKey: .uuid(UUID())),
        ]) }
        var asked: [Int64] = []
        func read(after position: Int64) -> (records: [HistoryRecord], last: Int64, expiredThrough: Int64) {
            asked.append(position)
            return (records.filter { $0.transactionNumber > position }, 5, 2)   // 1 and 2 deleted
        }
        let token = DefaultHistoryToken(storeIdentifier: "S", transactionNumber: 3)
        let after = try fetchHistory(HistoryDescriptor(after: token), storeIdentifier: "S", schema: schema, read: read)
        #expect(after.map(\.transactionIdentifier) == [4, 5])
        #expect(try fetchHistory(HistoryDescriptor(), storeIdentifier: "S", schema: schema, read: read).count == 3)
        #expect(throws: HistoryError.self) {
            try fetchHistory(HistoryDescriptor(after: DefaultHistoryToken(storeIdentifier: "S", transactionNumber: 1)),
                             storeIdentifier: "S", schema: schema, read: read)
        }
        #expect(asked == [3, 0, 1])
    }

    /// The collation orders and equates as `QueryComparison` does on strings, where a byte
    /// comparison of strings not in NFC does not.
    @Test func theCollationIsSwiftsComparison() {
        let strings = ["café", "cafe\u{301}", "cafe", "cafg", "\u{212B}", "\u{C5}", "B", "a", "", "z\u{301}", "\u{17A}"]
        var byteOrderDiffers = false
        for a in strings {
            for b in strings {
                let collated = Array(a.utf8).withUnsafeBytes { lhs in Array(b.utf8).withUnsafeBytes { rhs in swiftCollation(lhs, rhs) } }
                #expect((collated == 0) == QueryComparison.equal.evaluate(.string(a), .string(b)), "\(a) = \(b)")
                #expect((collated < 0) == QueryComparison.lessThan.evaluate(.string(a), .string(b)), "\(a) < \(b)")
                if (collated < 0) != Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) { byteOrderDiffers = true }
            }
        }
        #expect(byteOrderDiffers)   // the strings are ones where bytes alone would be wrong
    }
}
