import DataStores
import PostgresStore
import Testing

/// A model with a unique and an indexed `String`: the attributes whose values PostgreSQL puts
/// into an index.
@Model final class PGLabel {
    #Unique<PGLabel>([\.key])
    #Index<PGLabel>([\.label])
    var id = UUID()
    var key: String
    var label: String

    init(key: String, label: String) {
        self.key = key
        self.label = label
    }
}

/// Opening with the rights a reader has, a table changed behind the store's back, and values
/// larger than an index entry (issue 28).
@Suite("Open and limits", .enabled(if: TestServer.isConfigured))
struct OpenAndLimitTests {
    /// Text of `count` bytes that compresses badly (hexadecimal of random UUIDs), so that
    /// PostgreSQL cannot squeeze it into an index entry.
    static func longText(_ count: Int) -> String {
        var text = ""
        while text.utf8.count < count { text += UUID().uuidString }
        return String(text.prefix(count))
    }

    @Test("A role that may only read opens a store with read-only=true and reads it")
    func readOnlyRole() async throws {
        let configuration = try TestServer.configuration()
        let writer = ModelContext(try ModelContainer(for: Schema(PGNote.self), configurations: [configuration]))
        writer.insert(PGNote(title: "kept", rank: 1))
        try writer.save()

        let role = "reader_" + UUID().uuidString.prefix(8).lowercased()
        try await BadInputTests.execute(configuration, [
            "CREATE ROLE \(role) LOGIN PASSWORD 'reader-pw'",
            "GRANT USAGE ON SCHEMA \"\(configuration.namespace)\" TO \(role)",
            "GRANT SELECT ON ALL TABLES IN SCHEMA \"\(configuration.namespace)\" TO \(role)",
        ])
        var reader = configuration
        reader.user = role
        reader.password = "reader-pw"
        reader.allowsSave = false
        let container = try ModelContainer(for: Schema(PGNote.self), configurations: [reader])
        #expect(try ModelContext(container).fetch(FetchDescriptor<PGNote>()).map(\.title) == ["kept"])

        // A new store needs the rights to create its tables: refused, saying so, nothing created.
        var missing = reader
        missing.namespace = TestServer.freshNamespace()
        let error = try #require(throws: DataStoreError.self) {
            try ModelContainer(for: Schema(PGNote.self), configurations: [missing])
        }
        #expect(error.code == .invalidConfiguration && error.message.contains("permission"), "\(error.message)")
        let schemas = try await BadInputTests.strings(configuration, "SELECT nspname::text FROM pg_namespace WHERE nspname = '\(missing.namespace)'")
        #expect(schemas.isEmpty)
    }

    @Test("A column whose type was changed behind the store's back is noticed on open, naming it")
    func changedColumnType() async throws {
        let configuration = try TestServer.configuration()
        let context = ModelContext(try ModelContainer(for: Schema(PGNote.self), configurations: [configuration]))
        context.insert(PGNote(title: "kept", rank: 1))
        try context.save()
        try await BadInputTests.execute(configuration, [
            "ALTER TABLE \"\(configuration.namespace)\".\"PGNote\" ALTER COLUMN rank TYPE text",
        ])
        let error = try #require(throws: DataStoreError.self) {
            try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        }
        #expect(error.code == .invalidConfiguration, "\(error)")
        #expect(error.message.contains("rank") && error.message.contains("text") && error.message.contains("bigint"), "\(error.message)")
    }

    @Test("20 KB strings in a unique and an indexed attribute are stored, found, sorted and upserted")
    func longIndexedStrings() throws {
        let configuration = try TestServer.configuration()
        let container = try ModelContainer(for: Schema(PGLabel.self), configurations: [configuration])
        let long = Self.longText(20_000), other = Self.longText(20_000)
        let context = ModelContext(container)
        let stored = PGLabel(key: long, label: other)
        context.insert(stored)
        context.insert(PGLabel(key: "short", label: "0"))
        try context.save()

        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<PGLabel>(predicate: #Predicate { $0.key == long })).map(\.id) == [stored.id])
        #expect(try reader.fetch(FetchDescriptor<PGLabel>(predicate: #Predicate { $0.label == other })).map(\.id) == [stored.id])
        #expect(try reader.fetch(FetchDescriptor<PGLabel>(predicate: #Predicate { $0.label > "0" })).map(\.id) == [stored.id])
        #expect(try reader.fetch(FetchDescriptor<PGLabel>(sortBy: [SortDescriptor(\.label, order: .reverse)])).map(\.label) == [other, "0"])

        // The same long key again: the stored model, updated.
        let again = ModelContext(container)
        again.insert(PGLabel(key: long, label: "b"))
        try again.save()
        let all = try ModelContext(container).fetch(FetchDescriptor<PGLabel>(sortBy: [SortDescriptor(\.label)]))
        #expect(all.map(\.label) == ["0", "b"] && all.last?.id == stored.id && all.last?.key == long)
    }

    @Test("An id longer than an index entry holds is refused as an unsupported value, saying why")
    func longStringID() throws {
        let configuration = try TestServer.configuration()
        let container = try ModelContainer(for: Schema(PGKeyed.self), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(PGKeyed(id: Self.longText(20_000)))
        let error = try #require(throws: DataStoreError.self) { try context.save() }
        #expect(error.code == .unsupportedValue && error.message.contains("id"), "\(error.message)")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<PGKeyed>()) == 0)
    }
}

/// A model keyed by a `String`.
@Model final class PGKeyed {
    var id: String
    init(id: String) { self.id = id }
}
