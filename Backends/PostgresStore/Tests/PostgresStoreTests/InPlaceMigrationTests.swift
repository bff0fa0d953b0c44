import DataStores
import PostgresStore
import Testing

/// A trip as version 1 stores it.
@Model final class PGTripV1 {
    #Index<PGTripV1>([\.name])
    static var entityName: String { "PGTrip" }
    var name: String
    var score: Double
    var stops: Int

    init(name: String, score: Double, stops: Int) {
        self.name = name
        self.score = score
        self.stops = stops
    }
}

/// Version 2: `name` renamed `title`, `stops` removed, `rating` added with a default, `note` added.
@Model final class PGTripV2 {
    #Index<PGTripV2>([\.title])
    static var entityName: String { "PGTrip" }
    @Attribute(originalName: "name") var title: String
    var score: Double
    var rating = 3
    var note: String?

    init(title: String, score: Double) {
        self.title = title
        self.score = score
    }
}

/// Version 2 with titles unique: a change said by rebuilding the table.
@Model final class PGTripUnique {
    #Unique<PGTripUnique>([\.title])
    #Index<PGTripUnique>([\.title])
    static var entityName: String { "PGTrip" }
    var title: String
    var score: Double
    var rating = 3
    var note: String?

    init(title: String, score: Double) {
        self.title = title
        self.score = score
    }
}

/// Lightweight migrations change the tables in place (`ALTER TABLE`): the table is the same
/// object before and after, and every value reads back exactly, including values kept in `_rest`.
@Suite("In-place migration", .serialized, .enabled(if: TestServer.isConfigured))
struct InPlaceMigrationTests {
    static let decomposed = "cafe\u{301}"
    static let scores: [String: Double] = ["Zürich": 1.5, decomposed: -0.0, "nan": .nan]

    func open(_ configuration: PostgresStoreConfiguration, _ types: any PersistentModel.Type...) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [configuration])
    }

    /// The table's object identifier: the same after `ALTER TABLE`, another after a rebuild.
    func tableOID(_ configuration: PostgresStoreConfiguration) async throws -> String {
        try await BadInputTests.strings(configuration, "SELECT '\"\(configuration.namespace)\".\"PGTrip\"'::regclass::oid::text").first ?? ""
    }

    func seeded() throws -> PostgresStoreConfiguration {
        let configuration = try TestServer.configuration()
        let context = ModelContext(try open(configuration, PGTripV1.self))
        for (name, score) in Self.scores { context.insert(PGTripV1(name: name, score: score, stops: 4)) }
        try context.save()
        return configuration
    }

    /// Every trip as version 2 reads it: title -> (score bits, rating, note).
    func tripsV2<Model: PersistentModel>(_ configuration: PostgresStoreConfiguration, _ type: Model.Type,
                                         _ read: (Model) -> (String, UInt64, Int, String?)) throws -> [String: (UInt64, Int, String?)] {
        let context = ModelContext(try open(configuration, type))
        var trips: [String: (UInt64, Int, String?)] = [:]
        for trip in try context.fetch(FetchDescriptor<Model>()) {
            let (title, bits, rating, note) = read(trip)
            trips[title] = (bits, rating, note)
        }
        return trips
    }

    func expectMigratedValues(_ trips: [String: (UInt64, Int, String?)]) {
        #expect(Set(trips.keys.map { Array($0.unicodeScalars) }) == Set(Self.scores.keys.map { Array($0.unicodeScalars) }),
                "titles, scalar for scalar: \(trips.keys.sorted())")
        for (title, score) in Self.scores {
            let trip = trips.first { Array($0.key.unicodeScalars) == Array(title.unicodeScalars) }?.value
            #expect(trip?.0 == score.bitPattern, "score of \(title)")
            #expect(trip?.1 == 3 && trip?.2 == nil, "default rating and no note for \(title)")
        }
    }

    @Test("A save of new models by a store opened before another process migrated it: refused, nothing written")
    func aSaveAfterAMigrationElsewhereIsRefused() throws {
        let configuration = try seeded()
        // Opened at the old generation; its saves of new models write without reading stored
        // rows first, and must still see the migration before anything is kept.
        let old = ModelContext(try open(configuration, PGTripV1.self))
        _ = try ModelContext(try open(configuration, PGTripV2.self)).fetchCount(FetchDescriptor<PGTripV2>())
        old.insert(PGTripV1(name: "late", score: 1, stops: 1))
        let refusal = #expect(throws: DataStoreError.self) { try old.save() }
        #expect(refusal?.code == .incompatibleSchema)
        // Said as a migration (the generation read under the lock), not as a column gone.
        #expect(refusal?.message.contains("holds data of another schema") == true, "\(String(describing: refusal))")
        let titles = try ModelContext(try open(configuration, PGTripV2.self)).fetch(FetchDescriptor<PGTripV2>()).map(\.title)
        #expect(Set(titles) == Set(Self.scores.keys))
    }

    @Test("Rename, removal and an added attribute with a default: ALTER TABLE, values exact, queries right")
    func lightweightChangesAlterTheTable() async throws {
        let configuration = try seeded()
        let before = try await tableOID(configuration)
        let trips = try tripsV2(configuration, PGTripV2.self) { ($0.title, $0.score.bitPattern, $0.rating, $0.note) }
        #expect(try await tableOID(configuration) == before, "the table was rebuilt, not altered")
        expectMigratedValues(trips)
        let columns = try await BadInputTests.strings(configuration,
            "SELECT column_name::text FROM information_schema.columns WHERE table_schema = '\(configuration.namespace)' AND table_name = 'PGTrip' ORDER BY 1")
        #expect(columns == ["_exact", "_pk", "_rest", "_seq", "id", "note", "rating", "score", "title"])
        // Queries on the renamed and the added column, the decomposed title found by its composed spelling.
        let context = ModelContext(try open(configuration, PGTripV2.self))
        let composed = "caf\u{E9}", three = 3
        #expect(try context.fetch(FetchDescriptor<PGTripV2>(predicate: #Predicate { $0.title == composed && $0.rating == three })).count == 1)
        #expect(try context.fetchCount(FetchDescriptor<PGTripV2>(predicate: #Predicate { $0.rating > three })) == 0)
        // And it saves in the new shape.
        context.insert(PGTripV2(title: "new", score: 2))
        try context.save()
        #expect(try ModelContext(try open(configuration, PGTripV2.self)).fetchCount(FetchDescriptor<PGTripV2>()) == 4)
    }

    /// The control: a change the alteration does not say (a unique constraint added) rebuilds the
    /// table, and the test above would see that as a new object identifier.
    @Test("A unique constraint added rebuilds the table: another object identifier, values exact")
    func aUniqueConstraintRebuildsTheTable() async throws {
        let configuration = try seeded()
        _ = try tripsV2(configuration, PGTripV2.self) { ($0.title, $0.score.bitPattern, $0.rating, $0.note) }
        let before = try await tableOID(configuration)
        let trips = try tripsV2(configuration, PGTripUnique.self) { ($0.title, $0.score.bitPattern, $0.rating, $0.note) }
        #expect(try await tableOID(configuration) != before)
        expectMigratedValues(trips)
    }
}
