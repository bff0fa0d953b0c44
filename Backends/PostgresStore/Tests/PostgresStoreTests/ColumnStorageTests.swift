import DataStores
@testable import PostgresStore
import StoreBuildingBlocks
import Testing

/// A model with an attribute of every type a query compares, and one (`tags`) kept as JSON.
@Model final class PGRow {
    #Index<PGRow>([\.name], [\.when])
    var name: String
    var nickname: String?
    var count: Int
    var small: Int8
    var score: Double
    var ratio: Float
    var when: Date
    var flag: Bool
    var token: UUID?
    var tags: [String]

    init(name: String, nickname: String? = nil, count: Int = 0, small: Int8 = 0, score: Double = 0, ratio: Float = 0,
         when: Date = Date(timeIntervalSinceReferenceDate: 0), flag: Bool = false, token: UUID? = nil, tags: [String] = []) {
        self.name = name
        self.nickname = nickname
        self.count = count
        self.small = small
        self.score = score
        self.ratio = ratio
        self.when = when
        self.flag = flag
        self.token = token
        self.tags = tags
    }
}

/// Rows as typed columns: every value reads back as the very `SnapshotValue` saved (values no
/// column holds go to `_rest`), and queries pushed down as SQL select what Swift selects.
@Suite("Column storage", .enabled(if: TestServer.isConfigured))
struct ColumnStorageTests {
    static func store() throws -> PostgresStore {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(PGRow.self)
        return try PostgresStore(configuration)
    }

    static func key(_ n: Int) -> SnapshotValue { .uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))!) }

    static func snapshot(_ n: Int, _ values: [String: SnapshotValue]) -> DefaultSnapshot {
        var values = values
        values["id"] = key(n)
        return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: PGRow.entityName, primaryKey: key(n)), values: values)
    }

    /// Equal as stored: the same case, doubles bit for bit, strings scalar for scalar, the same keys.
    static func identical(_ a: SnapshotValue, _ b: SnapshotValue) -> Bool {
        switch (a, b) {
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case let (.date(x), .date(y)): return x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case let (.object(x), .object(y)): return identical(x, y)
        case (.int, .int), (.unsigned, .unsigned), (.bool, .bool), (.uuid, .uuid), (.data, .data), (.decimal, .decimal), (.null, .null):
            return a == b
        default: return false
        }
    }

    static func identical(_ a: [String: SnapshotValue], _ b: [String: SnapshotValue]) -> Bool {
        Set(a.keys) == Set(b.keys) && a.allSatisfy { key, value in identical(value, b[key]!) }
    }

    @Test("The comparison of read-back values tells apart what == does not (the control of the next test)")
    func identicalTellsApart() {
        #expect(!Self.identical(.double(-0.0), .double(0.0)))
        #expect(!Self.identical(.string("caf\u{E9}"), .string("cafe\u{301}")))
        #expect(!Self.identical(.int(3), .double(3)))
        #expect(!Self.identical(["a": .null], [:]))
        #expect(!Self.identical(.date(Date(timeIntervalSinceReferenceDate: 0.1)), .date(Date(timeIntervalSinceReferenceDate: 0.1.nextUp))))
        #expect(Self.identical(.double(.nan), .double(.nan)))
    }

    @Test("Every value reads back exactly: values that fit their column, and those kept in _rest")
    func valuesReadBackExactly() throws {
        let store = try Self.store()
        let rows: [[String: SnapshotValue]] = [
            // Values that fit their columns.
            ["name": .string("Zürich 🧭"), "nickname": .string("z"), "count": .int(.min), "small": .int(-128), "score": .double(-0.0),
             "ratio": .double(Double(Float(0.1))), "when": .date(Date(timeIntervalSinceReferenceDate: 0.1.nextUp)), "flag": .bool(true),
             "token": .uuid(UUID()), "tags": .array([.string("a,\"b\""), .string("")])],
            // Values no column holds exactly: kept in _rest.
            ["name": .string("nul\u{0}inside"), "count": .unsigned(.max), "small": .int(300), "score": .double(.nan),
             "ratio": .double(0.1), "when": .double(12.5), "flag": .int(1), "token": .string("not a uuid"), "tags": .null],
            // nil as a missing value and as an explicit null; a name the schema does not have.
            ["name": .string("cafe\u{301}"), "nickname": .null, "count": .double(3), "score": .double(.infinity), "ratio": .double(-.infinity),
             "when": .date(Date(timeIntervalSinceReferenceDate: -1e9)), "flag": .bool(false), "tags": .array([]), "extra": .object(["k": .int(1)])],
        ]
        let snapshots = rows.enumerated().map { Self.snapshot($0.offset, $0.element) }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots))
        let read = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>()))
        try #require(read.fetchedSnapshots.count == snapshots.count)
        for (saved, back) in zip(snapshots, read.fetchedSnapshots) {
            #expect(saved.persistentIdentifier == back.persistentIdentifier)
            #expect(Self.identical(saved.values, back.values), "saved \(saved.values), read \(back.values)")
        }
        // And after an update of each, through the same columns.
        var updated = snapshots
        for index in updated.indices { updated[index].values["count"] = .int(Int64(index)) }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), updated: updated))
        let reread = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>()))
        for (saved, back) in zip(updated, reread.fetchedSnapshots) {
            #expect(Self.identical(saved.values, back.values), "saved \(saved.values), read \(back.values)")
        }
    }

    // MARK: Queries

    static let names = ["caf\u{E9}", "Café", "abc", "ABC", "", "a", "zebra", "Zürich", "🧭", "ß", "ss", "Ωmega", "10", "9", "\u{212B}ngström"]
        .map { $0.precomposedStringWithCanonicalMapping }
    static let scores: [Double] = [-0.0, 0.0, 1.5, -1.5, 1e300, .infinity, -.infinity]
    static let tokens = [UUID(), UUID()]
    static func day(_ n: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(n) * 86_400 + 0.25) }

    /// 120 rows of exact values (NFC strings, no NaN), so that every pushed-down query runs in SQL.
    static func queryStore() throws -> (PostgresStore, [DefaultSnapshot]) {
        let store = try Self.store()
        let snapshots = (0..<120).map { n in
            var values: [String: SnapshotValue] = [
                "name": .string(names[n % names.count]), "count": .int(Int64(n % 7) - 3), "small": .int(Int64(n % 5)),
                "score": .double(scores[n % scores.count]), "ratio": .double(Double(Float(n % 4) / 4)),
                "when": .date(day(n % 6)), "flag": .bool(n % 3 == 0), "tags": .array([]),
            ]
            if n % 4 != 0 { values["nickname"] = .string(names[(n * 7) % names.count]) }
            if n % 3 != 0 { values["token"] = .uuid(tokens[n % 2]) }
            return snapshot(1_000 + n, values)
        }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots))
        return (store, snapshots)
    }

    /// Queries of every kind that renders as SQL.
    static func pushedDown() -> [(String, FetchDescriptor<PGRow>)] {
        let decomposed = "cafe\u{301}", angstrom = "\u{212B}ngstro\u{308}m", b = "b", zero = -0.0, big = 1e299, day2 = Self.day(2)
        let token = Self.tokens[0], someNames = [decomposed, "ss", "9"], someScores = [-0.0, .infinity], three = 3
        let someIDs = Self.someIDs, oneID = Self.someIDs[1]
        return [
            ("name == cafe+U+0301", FetchDescriptor(predicate: #Predicate { $0.name == decomposed })),
            ("name == Ångström (decomposed)", FetchDescriptor(predicate: #Predicate { $0.name == angstrom })),
            ("name < b", FetchDescriptor(predicate: #Predicate { $0.name < b }, sortBy: [SortDescriptor(\.name)])),
            ("name >= cafe+U+0301", FetchDescriptor(predicate: #Predicate { $0.name >= decomposed }, sortBy: [SortDescriptor(\.name, order: .reverse)])),
            ("nickname == nil", FetchDescriptor(predicate: #Predicate { $0.nickname == nil })),
            ("nickname != cafe+U+0301", FetchDescriptor(predicate: #Predicate { $0.nickname != decomposed }, sortBy: [SortDescriptor(\.nickname)])),
            ("score == -0.0", FetchDescriptor(predicate: #Predicate { $0.score == zero })),
            ("score > 1e299", FetchDescriptor(predicate: #Predicate { $0.score > big }, sortBy: [SortDescriptor(\.score)])),
            ("ratio <= 0.5", FetchDescriptor(predicate: #Predicate { $0.ratio <= 0.5 }, sortBy: [SortDescriptor(\.ratio, order: .reverse)])),
            ("when > day 2", FetchDescriptor(predicate: #Predicate { $0.when > day2 }, sortBy: [SortDescriptor(\.when), SortDescriptor(\.name)])),
            ("token == token0", FetchDescriptor(predicate: #Predicate { $0.token == token })),
            ("names contain name", FetchDescriptor(predicate: #Predicate { someNames.contains($0.name) })),
            ("scores contain score", FetchDescriptor(predicate: #Predicate { someScores.contains($0.score) })),
            ("flag && count < 3", FetchDescriptor(predicate: #Predicate { $0.flag && $0.count < three }, sortBy: [SortDescriptor(\.count)])),
            ("!(small == 1) || flag", FetchDescriptor(predicate: #Predicate { !($0.small == 1) || $0.flag })),
            ("all, by score then name", FetchDescriptor(sortBy: [SortDescriptor(\.score), SortDescriptor(\.name, order: .reverse)])),
            ("ids contain id", FetchDescriptor(predicate: #Predicate { someIDs.contains($0.id) })),
            ("id == key && flag", FetchDescriptor(predicate: #Predicate { $0.id == oneID && $0.flag })),
        ]
    }

    /// Ids of rows `queryStore()` saves (and one it does not), for the lookups by id.
    static let someIDs = [1_003, 1_004, 1_009, 5_000].map { n in UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))! }

    /// Sync's read-ahead fetches a batch's models by `ids.contains($0.id)`: the `id` column has no
    /// index, so each such fetch read the whole table until the test went through `_pk` too.
    @Test("A fetch by ids (contains, or == inside a conjunction) is also a test of _pk, whose index finds the rows")
    func idLookupsGoThroughThePrimaryKey() throws {
        let store = try Self.store()
        let table = try store.table(PGRow.entityName)
        let ids = Self.someIDs, oneID = Self.someIDs[0]
        let predicates: [(String, Predicate<PGRow>)] = [
            ("ids contain id", #Predicate { ids.contains($0.id) }),
            ("id == key && flag", #Predicate { $0.id == oneID && $0.flag }),
        ]
        for (text, predicate) in predicates {
            let query = DataStoreFetchRequest(descriptor: FetchDescriptor(predicate: predicate)).query
            var renderer = SQLQueryRenderer(table: table)
            guard case .expression(let expression) = query.filter else { Issue.record("\(text) did not translate"); continue }
            #expect(renderer.render(expression)?.contains("_pk = ") == true, "\(text)")
        }
    }

    @Test("Comparisons of every query type, contains and sorts render whole as SQL; string operations and ?? do not; NaN never reaches SQL")
    func whatRenders() throws {
        let store = try Self.store()
        let table = try store.table(PGRow.entityName)
        for (text, descriptor) in Self.pushedDown() {
            let query = DataStoreFetchRequest(descriptor: descriptor).query
            var renderer = SQLQueryRenderer(table: table)
            if case .expression(let expression) = query.filter { #expect(renderer.render(expression) != nil, "\(text)") }
            if case .keys(let keys) = query.sort { #expect(renderer.renderSort(keys) != nil, "sort of \(text)") }
        }
        let notANumber = Double.nan, a = "a", nul = "\u{0}x"
        let refused: [(String, Predicate<PGRow>)] = [
            ("name.contains(a)", #Predicate { $0.name.contains(a) }),
            ("nickname ?? a == a", #Predicate { ($0.nickname ?? a) == a }),
            ("name == a NUL character", #Predicate { $0.name == nul }),
        ]
        for (text, predicate) in refused {
            let query = DataStoreFetchRequest(descriptor: FetchDescriptor(predicate: predicate)).query
            var renderer = SQLQueryRenderer(table: table)
            if case .expression(let expression) = query.filter { #expect(renderer.render(expression) == nil, "\(text)") }
        }
        // A comparison with a NaN constant is folded to a constant before any store sees it
        // (FetchQuery), so SQL, which finds NaN equal to itself, never compares with one.
        let withNaN = DataStoreFetchRequest(descriptor: FetchDescriptor(predicate: #Predicate<PGRow> { $0.score == notANumber })).query
        #expect(withNaN.filter == .expression(.constant(.bool(false))))
        var renderer = SQLQueryRenderer(table: table)
        if case .keys(let keys) = DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>(sortBy: [SortDescriptor(\.token)])).query.sort {
            #expect(renderer.renderSort(keys) == nil, "sort by UUID")
        }
    }

    /// Queries of every pushed-down kind, with the in-memory evaluation over all rows as the reference.
    @Test("Pushed-down comparisons, contains and sorts select and order what Swift does")
    func pushedDownQueriesMatchMemory() throws {
        let (store, snapshots) = try Self.queryStore()
        let descriptors = Self.pushedDown()
        for (text, descriptor) in descriptors {
            for (offset, limit) in [(nil, nil), (3, 5) as (Int?, Int?)] {
                var paged = descriptor
                paged.fetchOffset = offset
                paged.fetchLimit = limit
                let request = DataStoreFetchRequest(descriptor: paged)
                let expected = try QueryEvaluator.fetch(request, over: snapshots).map(\.persistentIdentifier)
                let fetched = try store.fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
                #expect(fetched == expected, "\(text), offset \(offset ?? 0), limit \(limit ?? -1)")
                #expect(try store.fetchCount(request) == expected.count, "count of \(text)")
            }
        }
    }

    /// Found by an adversary: a constant with a NUL character was bound as `text`, which
    /// PostgreSQL refuses, and the whole fetch failed.
    @Test("A string constant with a NUL character is compared in memory, on rows that hold one or not")
    func constantsWithANulCharacter() throws {
        let (store, snapshots) = try Self.queryStore()
        let nul = "\u{0}x", names = ["a", "\u{0}x"]
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [Self.snapshot(5_000, [
            "name": .string(nul), "count": .int(0), "small": .int(0), "score": .double(0), "ratio": .double(0),
            "when": .date(Self.day(0)), "flag": .bool(false), "tags": .array([])])]))
        let all = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>())).fetchedSnapshots
        #expect(all.count == snapshots.count + 1)
        for predicate in [#Predicate<PGRow> { $0.name == nul }, #Predicate { $0.name < nul }, #Predicate { names.contains($0.name) }] {
            let request = DataStoreFetchRequest(descriptor: FetchDescriptor(predicate: predicate))
            #expect(try store.fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
                    == QueryEvaluator.fetch(request, over: all).map(\.persistentIdentifier))
        }
    }

    /// The control of the previous test: its rows and constants tell apart a renderer that
    /// compares bytes without normalizing (the decomposed constant selects nothing there).
    @Test("The rows above are ones that a byte comparison without NFC gets wrong")
    func rowsCatchAnUnnormalizedComparison() async throws {
        let (store, snapshots) = try Self.queryStore()
        let decomposed = "cafe\u{301}"
        let request = DataStoreFetchRequest(descriptor: FetchDescriptor<PGRow>(predicate: #Predicate { $0.name == decomposed }))
        let expected = try QueryEvaluator.fetch(request, over: snapshots)
        #expect(!expected.isEmpty)
        let configuration = store.configuration
        let naive = try await BadInputTests.strings(configuration,
            "SELECT _pk FROM \"\(configuration.namespace)\".\"PGRow\" WHERE name = '\(decomposed)'")
        #expect(naive.isEmpty, "a byte comparison of the decomposed constant found \(naive.count) rows")
    }
}
