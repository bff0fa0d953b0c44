import Foundation
import PostgresNIO
@testable import PostgresStore
import StoreProtocol
import Testing

/// History in `_history` and `_changes`: what a transaction records reads back exactly, and
/// retention and deletion take the changes with their transactions.
@Suite("History tables", .enabled(if: TestServer.isConfigured))
struct HistoryTablesTests {
    @Test("Changes read back exactly: attribute names with commas, quotes, braces, backslashes; nil and empty lists apart; nested tombstones")
    func changesReadBackExactly() throws {
        let store = try ColumnStorageTests.store()
        let key = ColumnStorageTests.key(7)
        let odd = "a,b \"q\" {x} \\ é'", decomposed = "cafe\u{301}"
        let changes = [
            HistoryRecord.Change(kind: .update, entityName: PGRow.entityName, primaryKey: key, updatedAttributes: [odd, "", decomposed]),
            HistoryRecord.Change(kind: .update, entityName: PGRow.entityName, primaryKey: key, updatedAttributes: []),
            HistoryRecord.Change(kind: .update, entityName: PGRow.entityName, primaryKey: key, updatedAttributes: nil),
            HistoryRecord.Change(kind: .delete, entityName: PGRow.entityName, primaryKey: .int(3),
                                 tombstone: [odd: .array([.null, .object(["k": .double(-0.0)])]), decomposed: .string(decomposed)]),
        ]
        for (number, recorded) in [(Int64(1), changes), (2, [])] {
            let record = HistoryRecord(transactionNumber: number, author: "test", timestamp: Date(timeIntervalSince1970: 1), changes: recorded)
            try store.session.transaction { sql in
                var history = store.historyBinds(record)
                history.append(number)
                try sql.execute("INSERT INTO \(store.namespace)._history (tx, ts, author, bundle, process) VALUES ($5, $1, $2, $3, $4)", history.bindings)
                var binds = PostgresBindings()
                binds.append(number)
                for column in try HistoryTables.changeArrays(record.changes).columns { binds.append(column) }
                try sql.execute(HistoryTables.insertChanges(namespace: store.namespace, tx: 1, first: 2), binds)
            }
        }
        let log = try store.session.withConnection { sql in try store.historyLog(after: nil, sql) }
        #expect(log.records.map(\.transactionNumber) == [1, 2])
        #expect(log.records.first?.changes == changes)
        #expect(log.records.last?.changes == [])
        let read = try #require(log.records.first?.changes)
        #expect(read.map { $0.updatedAttributes == nil } == [false, false, true, true])
        // == on strings is canonical equivalence: compare the scalars, and the sign of -0.0.
        #expect(read[0].updatedAttributes?.map { Array($0.unicodeScalars) } == [odd, "", decomposed].map { Array($0.unicodeScalars) })
        #expect(read[3].tombstone?.keys.map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) { $0.value < $1.value } }
                == [odd, decomposed].map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) { $0.value < $1.value } })
        if case .array(let elements)? = read[3].tombstone?[odd], case .object(let inner) = elements[1], case .double(let zero)? = inner["k"] {
            #expect(zero.sign == .minus)
        } else {
            Issue.record("the tombstone reads \(String(describing: read[3].tombstone))")
        }
    }

    @Test("Retention and deleteHistory delete a transaction's changes with it")
    func changesGoWithTheirTransaction() async throws {
        let configuration = try TestServer.configuration(retention: HistoryRetention(maximumTransactions: 2))
        let container = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        for rank in 0..<5 {
            let context = ModelContext(container)
            context.insert(PGNote(title: "a\(rank)", rank: rank))
            context.insert(PGNote(title: "b\(rank)", rank: rank))
            try context.save()
        }
        func counts() async throws -> [String] {
            try await BadInputTests.strings(configuration,
                "SELECT (SELECT count(*) FROM \(configuration.namespace)._history)::text || ' ' || (SELECT count(*) FROM \(configuration.namespace)._changes)::text")
        }
        #expect(try await counts() == ["2 4"])
        try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try await counts() == ["0 0"])
    }
}
