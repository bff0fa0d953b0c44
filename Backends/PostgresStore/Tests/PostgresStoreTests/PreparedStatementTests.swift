import DataStores
import Foundation
import PostgresNIO
@testable import PostgresStore
import StoreBuildingBlocks
import Testing

/// The hot paths' statements run prepared (`PreparedStatements`); the reference is the same
/// store with them unnamed, as they ran before, and the in-memory evaluation of the queries.
@Suite("Prepared statements", .enabled(if: TestServer.isConfigured))
struct PreparedStatementTests {
    /// Everything the store reads back, by the hot paths: all rows, every pushed-down query
    /// (with a page), its count, and history.
    static func readEverything(_ store: PostgresStore) throws -> (rows: [DefaultSnapshot], queries: [[PersistentIdentifier]], counts: [Int], history: [DefaultHistoryTransaction]) {
        let rows = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        var queries: [[PersistentIdentifier]] = [], counts: [Int] = []
        for (_, descriptor) in ColumnStorageTests.pushedDown() {
            for (offset, limit) in [(nil, nil), (2, 4) as (Int?, Int?)] {
                var paged = descriptor
                paged.fetchOffset = offset
                paged.fetchLimit = limit
                queries.append(try store.fetch(DataStoreFetchRequest(descriptor: paged)).fetchedSnapshots.map(\.persistentIdentifier))
                counts.append(try store.fetchCount(DataStoreFetchRequest(descriptor: paged)))
            }
        }
        return (rows, queries, counts, try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()))
    }

    /// Rows of every kind of value: the query rows (exact values), and rows whose values go to
    /// `_rest` (NaN, NUL, `UInt64.max`, explicit nil, a name the schema lacks, a long string),
    /// with an update and a delete, so that history holds every kind of change.
    static func filledStore() throws -> PostgresStore {
        let (store, _) = try ColumnStorageTests.queryStore()
        // Values that still decode as PGRow (in-memory evaluation decodes models), many kept in `_rest`.
        let odd: [[String: SnapshotValue]] = [
            ["name": .string("nul\u{0}inside"), "count": .int(.max), "small": .int(127), "score": .double(.nan),
             "ratio": .double(0.1), "when": .date(Date(timeIntervalSinceReferenceDate: 12.5)), "flag": .bool(true), "token": .null, "tags": .array([])],
            ["name": .string("cafe\u{301}"), "nickname": .null, "count": .int(3), "small": .int(-128), "score": .double(.infinity), "ratio": .double(-.infinity),
             "when": .date(Date(timeIntervalSinceReferenceDate: -1e9)), "flag": .bool(false), "tags": .array([])],
            ["name": .string(String(repeating: "Ω", count: 3_000)), "count": .int(.min), "small": .int(0), "score": .double(-0.0),
             "ratio": .double(Double(Float(0.1))), "when": .date(Date(timeIntervalSinceReferenceDate: 0.1.nextUp)), "flag": .bool(true),
             "token": .uuid(UUID()), "tags": .array([.string("a,\"b\""), .string("")])],
            ["name": .string(""), "count": .int(0), "small": .int(0), "score": .double(0), "ratio": .double(0),
             "when": .date(Date(timeIntervalSinceReferenceDate: 0)), "flag": .bool(false), "tags": .array([])],
        ]
        let snapshots = odd.enumerated().map { ColumnStorageTests.snapshot(9_000 + $0.offset, $0.element) }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(author: "odd"), inserted: snapshots))
        var changed = snapshots[3]
        changed.values["count"] = .int(42)
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), updated: [changed], deleted: [snapshots[0]]))
        return store
    }

    @Test("Prepared statements read back what unnamed ones read: every value, every pushed-down query and count, history")
    func preparedReadsWhatUnnamedReads() throws {
        let store = try Self.filledStore()
        let prepared = try Self.readEverything(store)
        // The control: the reads above went through prepared statements.
        #expect(store.session.preparedStatementCount > 0)
        store.session.preparesStatements = false
        let unnamed = try Self.readEverything(store)
        #expect(store.session.preparedStatementCount == 0)

        try #require(prepared.rows.count == unnamed.rows.count)
        for (a, b) in zip(prepared.rows, unnamed.rows) {
            #expect(a.persistentIdentifier == b.persistentIdentifier)
            #expect(ColumnStorageTests.identical(a.values, b.values), "prepared \(a.values), unnamed \(b.values)")
        }
        #expect(prepared.queries == unnamed.queries)
        #expect(prepared.counts == unnamed.counts)
        #expect(prepared.history.map(\.transactionIdentifier) == unnamed.history.map(\.transactionIdentifier))
        #expect(prepared.history.map { $0.changes.map(\.description) } == unnamed.history.map { $0.changes.map(\.description) })
        #expect(prepared.history.map(\.author) == unnamed.history.map(\.author))
        #expect(prepared.history.map(\.timestamp) == unnamed.history.map(\.timestamp))
        // And the queries select what Swift selects (the in-memory evaluation over every row).
        var index = 0
        for (text, descriptor) in ColumnStorageTests.pushedDown() {
            for (offset, limit) in [(nil, nil), (2, 4) as (Int?, Int?)] {
                var paged = descriptor
                paged.fetchOffset = offset
                paged.fetchLimit = limit
                let expected = try QueryEvaluator.fetch(DataStoreFetchRequest(descriptor: paged), over: unnamed.rows).map(\.persistentIdentifier)
                #expect(prepared.queries[index] == expected, "\(text)")
                #expect(prepared.counts[index] == expected.count, "count of \(text)")
                index += 1
            }
        }
    }

    @Test("Saves through prepared statements keep every value, the order and the history of unnamed ones")
    func preparedSavesMatchUnnamedSaves() throws {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(PGRow.self)
        let prepared = try PostgresStore(configuration)
        configuration.namespace = TestServer.freshNamespace()
        let unnamed = try PostgresStore(configuration)
        unnamed.session.preparesStatements = false
        // New rows (the fast path), then an insert of a stored id beside a new one, an update and
        // a delete (the general path), in both stores; every kind of value.
        let odd = try Self.filledStore().fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        let fresh = (0..<300).map { InsertFastPathTests.row($0, name: ColumnStorageTests.names[$0 % ColumnStorageTests.names.count]) }
        var again = fresh[7]
        again.values["name"] = .string("again")
        var changed = odd[1]
        changed.values["score"] = .double(.nan)
        let saves = [
            DataStoreSaveChangesRequest(editingState: EditingState(author: "a"), inserted: odd + Array(fresh[..<200])),
            DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [again] + Array(fresh[200...])),
            DataStoreSaveChangesRequest(editingState: EditingState(), updated: [changed], deleted: [odd[2]]),
        ]
        for save in saves {
            _ = try prepared.save(save)
            _ = try unnamed.save(save)
        }
        #expect(prepared.session.preparedStatementCount > 0)
        #expect(unnamed.session.preparedStatementCount == 0)
        let a = try prepared.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        let b = try unnamed.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        #expect(a.count == odd.count + fresh.count - 1)
        #expect(a.map(\.persistentIdentifier) == b.map(\.persistentIdentifier))
        for (x, y) in zip(a, b) { #expect(ColumnStorageTests.identical(x.values, y.values), "prepared \(x.values), unnamed \(y.values)") }
        let historyA = try prepared.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let historyB = try unnamed.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(historyA.map(\.transactionIdentifier) == [1, 2, 3])
        #expect(historyA.map(\.transactionIdentifier) == historyB.map(\.transactionIdentifier))
        #expect(historyA.map { $0.changes.map(\.description) } == historyB.map { $0.changes.map(\.description) })
        #expect(historyA.map(\.author) == historyB.map(\.author))
    }

    /// The control of the reads above: a prepared statement's rows say `text` (their description
    /// comes from `Describe` of the statement) while their cells are binary; read as they say, an
    /// integer does not decode. The store reads them as binary (`PostgresRow.binaryCells`).
    @Test("A prepared statement's cells say text but hold binary: read as described, an integer fails")
    func preparedCellsNeedBinaryReading() throws {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(PGRow.self)
        let store = try PostgresStore(configuration)
        let (format, asDescribed, asBinary) = try store.session.withConnection { sql -> (PostgresFormat, Int64?, Int64) in
            let rows = try sql.queryPrepared("SELECT 1234567890123::bigint", StatementBinds())
            let row = try #require(rows.first)
            var cells = row.makeIterator()
            let first = cells.next()
            let cell = try #require(first)
            let binary = try #require(row.binaryCells.first)
            return (cell.format, try? cell.decode(Int64.self), try binary.decode(Int64.self))
        }
        #expect(format == .text)
        #expect(asDescribed != 1_234_567_890_123)
        #expect(asBinary == 1_234_567_890_123)
    }

    @Test("A save's unique violation found by the server keeps its code through a prepared statement")
    func errorsOfPreparedStatements() throws {
        let store = try ColumnStorageTests.store()
        let row = InsertFastPathTests.row(1, name: "x")
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [row]))
        // A statement that fails on the server, prepared: the error says what the server said.
        let error = try #require(throws: DataStoreError.self) {
            try store.session.withConnection { sql in
                var binds = StatementBinds()
                binds.append("not a number")
                _ = try sql.queryPrepared("SELECT $1::text::bigint", binds)
            }
        }
        #expect(error.code == .ioFailure)
        #expect(error.message.contains("SQLSTATE 22P02"), "\(error.message)")
        #expect(!error.message.contains("not a number"), "\(error.message)")
        #expect(String(reflecting: error).contains("not a number"))
    }
}
