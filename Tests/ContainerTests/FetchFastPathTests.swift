import DataStores
import Foundation
import MemoryStore
import Testing

/// The per-model fast paths of a fetch through a context give what the slower paths gave:
/// the `@Model` decoder reads the stored values in one pass over the dictionary (a `switch` on
/// each name) instead of a lookup by name, and a fetch registers a model under the identifier
/// made from its schema entity's name instead of asking the type for it again (and so do an
/// insert and a save).
@Suite struct FetchFastPathTests {
    enum Mood: String { case calm, busy }

    /// Names chosen to meet the expansion's own: `values`, `key` and `value` beside `_$values`,
    /// `_$key` and `_$value`.
    @Model final class Sample {
        var name: String
        var score: Double
        var count: Int?
        var tags: [String]
        var when: Date
        var mood: Mood
        var values: [Int] = []
        var key: String?
        var value: Bool = false
        init(name: String, score: Double, tags: [String], when: Date, mood: Mood) {
            self.name = name; self.score = score; self.tags = tags; self.when = when; self.mood = mood
        }
    }

    /// What the expansion did before: each attribute looked up by name, in declaration order.
    struct ByLookup: Equatable {
        var id: UUID, name: String, score: Double, count: Int?, tags: [String], when: Date, mood: Mood
        var values: [Int], key: String?, value: Bool

        init(_ stored: [String: SnapshotValue], swapped: Bool = false) throws {
            func decode<V: SnapshotValueConvertible>(_ name: String) throws -> V {
                try ModelCoding.decode(stored[name], attribute: name, of: "Sample")
            }
            id = try decode("id")
            name = try decode(swapped ? "key" : "name")
            score = try decode("score")
            count = try decode("count")
            tags = try decode("tags")
            when = try decode("when")
            mood = try ModelCoding.decode(stored["mood"], attribute: "mood", of: "Sample")
            values = try decode("values")
            key = try decode(swapped ? "name" : "key")
            value = try decode("value")
        }

        init(_ sample: Sample) {
            id = sample.id; name = sample.name; score = sample.score; count = sample.count; tags = sample.tags
            when = sample.when; mood = sample.mood; values = sample.values; key = sample.key; value = sample.value
        }

        static func == (lhs: Self, rhs: Self) -> Bool {
            // NaN is the same stored value as NaN.
            lhs.id == rhs.id && lhs.name == rhs.name && lhs.score.bitPattern == rhs.score.bitPattern && lhs.count == rhs.count
                && lhs.tags == rhs.tags && lhs.when == rhs.when && lhs.mood == rhs.mood && lhs.values == rhs.values
                && lhs.key == rhs.key && lhs.value == rhs.value
        }
    }

    /// Varied stored values: complete ones, optionals absent or null, unknown names, unicode,
    /// empty and large values, NaN; and broken ones (a required attribute absent, a value of the
    /// wrong type).
    static func storedValues() throws -> [[String: SnapshotValue]] {
        var rows: [[String: SnapshotValue]] = []
        let full = try Sample(name: "Lisbon", score: 1.5, tags: ["a", "b"], when: Date(timeIntervalSince1970: 7), mood: .busy)
            .storedValues()
        rows.append(full)
        var variant = full
        variant["count"] = .int(-3); variant["key"] = .string("ключ 🔑"); variant["value"] = .bool(true)
        rows.append(variant)
        variant["count"] = .null; variant["key"] = .null
        rows.append(variant)
        variant["unknown"] = .string("ignored"); variant["Name"] = .string("not name"); variant["_$key"] = .int(1)
        rows.append(variant)
        variant["name"] = .string(""); variant["tags"] = .array([]); variant["score"] = .double(.nan)
        rows.append(variant)
        variant["name"] = .string(String(repeating: "é", count: 10_000))
        variant["values"] = .array((0..<1_000).map { .int(Int64($0)) })
        variant["score"] = .double(-.infinity)
        rows.append(variant)
        var missing = full
        missing["when"] = nil
        rows.append(missing)
        var wrong = full
        wrong["score"] = .string("high")
        rows.append(wrong)
        var badRaw = full
        badRaw["mood"] = .string("angry")
        rows.append(badRaw)
        rows.append([:])
        return rows
    }

    /// The decoder and `reference` agree on every row: the same values, or the same error.
    static func agree(_ rows: [[String: SnapshotValue]], reference: ([String: SnapshotValue]) throws -> ByLookup) -> Bool {
        rows.allSatisfy { row in
            let decoded = Result(catching: { ByLookup(try Sample(storedValues: row)) })
            let expected = Result(catching: { try reference(row) })
            switch (decoded, expected) {
            case (.success(let a), .success(let b)): return a == b
            case (.failure(let a), .failure(let b)): return "\(a)" == "\(b)"
            default: return false
            }
        }
    }

    @Test func decodingInOnePassReadsWhatALookupByNameReads() throws {
        let rows = try Self.storedValues()
        #expect(Self.agree(rows, reference: { try ByLookup($0) }))
        // Some rows decode and some throw, so both outcomes were compared.
        #expect(rows.contains { (try? Sample(storedValues: $0)) != nil })
        #expect(rows.contains { (try? Sample(storedValues: $0)) == nil })
    }

    /// Negative control: a reference that reads two attributes the wrong way round disagrees.
    @Test func theComparisonCatchesADecoderThatSwapsAttributes() throws {
        let rows = try Self.storedValues()
        #expect(!Self.agree(rows, reference: { try ByLookup($0, swapped: true) }))
    }

    /// A fetched model's identifier, made from the schema entity's name, is the one the model
    /// gives: a model whose type overrides `entityName` is found again by it, once.
    @Model final class Renamed {
        static var entityName: String { "SomethingElse" }
        var name: String
        init(name: String) { self.name = name }
    }

    @Test func aFetchedModelIsRegisteredUnderItsOwnIdentifier() throws {
        let container = try ModelContainer(for: Renamed.self, configurations: MemoryStoreConfiguration())
        let writer = ModelContext(container)
        let saved = Renamed(name: "a")
        writer.insert(saved)
        #expect(writer.registeredModel(for: saved.persistentModelID) as Renamed? === saved, "an insert is registered under its own identifier")
        try writer.save()
        #expect(!writer.hasChanges)

        let context = ModelContext(container)
        let first = try context.fetch(FetchDescriptor<Renamed>())
        #expect(first.count == 1)
        let fetched = try #require(first.first)
        let identifier = fetched.persistentModelID
        #expect(identifier == saved.persistentModelID && identifier.entityName == "SomethingElse")
        #expect(context.registeredModel(for: identifier) as Renamed? === fetched)
        #expect(try context.fetch(FetchDescriptor<Renamed>()).first === fetched, "the identity map holds it")
        // Unsaved changes win over the stored row in the next fetch.
        fetched.name = "changed"
        #expect(try context.fetch(FetchDescriptor<Renamed>(predicate: #Predicate { $0.name == "changed" })).first === fetched)
        #expect(try context.fetch(FetchDescriptor<Renamed>(predicate: #Predicate { $0.name == "a" })).isEmpty)
    }

    /// A context that holds no model has no pending change, and one that holds an insert does:
    /// the fresh context's shortcut does not hide an insert.
    @Test func aFreshContextSeesNoPendingChangesAndAnInsertCounts() throws {
        let container = try ModelContainer(for: Renamed.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<Renamed>()).isEmpty)
        let new = Renamed(name: "new")
        context.insert(new)
        #expect(try context.fetch(FetchDescriptor<Renamed>()).first === new)
        #expect(try context.fetchCount(FetchDescriptor<Renamed>()) == 1)
        var stored = FetchDescriptor<Renamed>()
        stored.includePendingChanges = false
        #expect(try context.fetch(stored).isEmpty)
    }

    /// Seventeen stored properties (sixteen and `id`): past the switch's limit, the decoder looks
    /// each value up by name, and reads back what was saved, declaration order apart from
    /// alphabetical.
    @Model final class Wide {
        var p16 = 0
        var p15 = 0
        var p14 = 0
        var p13 = 0
        var p12 = 0
        var p11 = 0
        var p10 = 0
        var p9 = 0
        var p8 = 0
        var p7 = 0
        var p6 = 0
        var p5 = 0
        var p4 = 0
        var p3 = 0
        var p2 = 0
        var p1: String? = nil
        init(_ seed: Int) {
            p16 = seed + 16; p15 = seed + 15; p14 = seed + 14; p13 = seed + 13; p12 = seed + 12; p11 = seed + 11
            p10 = seed + 10; p9 = seed + 9; p8 = seed + 8; p7 = seed + 7; p6 = seed + 6; p5 = seed + 5
            p4 = seed + 4; p3 = seed + 3; p2 = seed + 2; p1 = "x\(seed)"
        }
        var all: [Int] { [p16, p15, p14, p13, p12, p11, p10, p9, p8, p7, p6, p5, p4, p3, p2] }
    }

    @Test func aModelPastTheSwitchLimitDecodesByName() throws {
        let saved = Wide(100)
        var stored = try saved.storedValues()
        #expect(stored.count == 17)
        let decoded = try Wide(storedValues: stored)
        #expect(decoded.id == saved.id && decoded.all == saved.all && decoded.p1 == "x100")
        stored["p1"] = nil
        #expect(try Wide(storedValues: stored).p1 == nil, "an absent optional is nil")
        stored["p7"] = .string("seven")
        #expect(throws: (any Error).self) { try Wide(storedValues: stored) }
    }
}
