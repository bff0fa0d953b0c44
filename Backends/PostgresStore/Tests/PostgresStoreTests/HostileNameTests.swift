import DataStores
@_spi(Testing) @testable import PostgresStore
import Testing

/// A model whose entity name holds what SQL text must never take as it is: quotes, double
/// quotes, a backslash, a semicolon, a dollar quote, a comment, non-ASCII. Its attribute names
/// are Swift identifiers (non-ASCII ones): the framework names attributes by their properties,
/// and Swift's raw identifiers (`` `a'b` ``) are not attribute names it reads, so names with
/// quotes reach the tables' columns only in ``HostileNameTests/hostileColumnNames()``.
@Model final class HostileNamed {
    #Unique<HostileNamed>([\.títle])
    #Index<HostileNamed>([\.rañk])
    var id = UUID()
    var títle: String
    var rañk: Int

    init(title: String, rank: Int) {
        títle = title
        rañk = rank
    }

    static var entityName: String { #"No'te "x"; DROP TABLE t; -- \ $$ é"# }
}

/// Names are identifiers and constants of SQL text: every one goes through one quoting
/// function, whatever it holds (issue 28: a namespace with `'` broke every insert and was an
/// injection point, through `?schema=`).
@Suite("Hostile names", .enabled(if: TestServer.isConfigured))
struct HostileNameTests {
    /// A fresh namespace full of quoting hazards, within PostgreSQL's 63 bytes.
    static func hostileNamespace() -> String {
        #"ns'; DROP SCHEMA public; -- "q" \ $$ é "# + UUID().uuidString.prefix(8).lowercased()
    }

    @Test("Namespace, entity and attribute names with quotes, backslashes, semicolons, $$ and unicode: saves, queries, history, reopen")
    func everyPosition() throws {
        let configuration = try TestServer.configuration(namespace: Self.hostileNamespace())
        let container = try ModelContainer(for: Schema(HostileNamed.self), configurations: [configuration])
        let context = ModelContext(container)
        let first = HostileNamed(title: "it's \"quoted\"; \\", rank: 2)
        context.insert(first)
        context.insert(HostileNamed(title: "plain", rank: 1))
        try context.save()

        let reader = ModelContext(container)
        let sorted = try reader.fetch(FetchDescriptor<HostileNamed>(sortBy: [SortDescriptor(\.rañk)]))
        #expect(sorted.map(\.títle) == ["plain", "it's \"quoted\"; \\"])
        let title = "it's \"quoted\"; \\"
        let found = try reader.fetch(FetchDescriptor<HostileNamed>(predicate: #Predicate { $0.títle == title && $0.rañk > 1 }))
        #expect(found.map(\.id) == [first.id])

        // An update, a delete, and an insert colliding on the unique title (an upsert).
        first.rañk = 5
        context.delete(try #require(try context.fetch(FetchDescriptor<HostileNamed>(predicate: #Predicate { $0.títle == "plain" })).first))
        try context.save()
        let again = ModelContext(container)
        again.insert(HostileNamed(title: title, rank: 7))
        try again.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<HostileNamed>())
        #expect(stored.map(\.id) == [first.id] && stored.map(\.rañk) == [7])
        let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.count == 3)

        // Reopened: the tables are found under their names.
        let reopened = try ModelContainer(for: Schema(HostileNamed.self), configurations: [try TestServer.configuration(namespace: configuration.namespace)])
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<HostileNamed>()) == 1)

        // History numbers from the sequence (the path of the many-writers negative control), in
        // a store of its own: the sequence and the ordered counter do not share numbers.
        var sequencedConfiguration = try TestServer.configuration(namespace: Self.hostileNamespace())
        sequencedConfiguration.unorderedHistoryNumbersForTesting = true
        let sequenced = try ModelContainer(for: Schema(HostileNamed.self), configurations: [sequencedConfiguration])
        let sequencedContext = ModelContext(sequenced)
        sequencedContext.insert(HostileNamed(title: "numbered by the sequence", rank: 3))
        try sequencedContext.save()
        #expect(try sequenced.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }

    @Test("Column names with quotes, double quotes, backslashes, semicolons and $$: made, written, updated, read, indexes made again")
    func hostileColumnNames() throws {
        let namespace = Self.hostileNamespace()
        var configuration = try TestServer.configuration(namespace: namespace)
        configuration.schema = Schema(PGNote.self)
        let store = try PostgresStore(configuration)   // the namespace, its sequences and _store
        let names = [#"ti'tle"; DROP TABLE x; -- \"#, #"ra"n$$k é'"#]
        func layout(indexed: [[String]]) -> EntityTable {
            EntityTable(recorded: StoredSchema.Entity(name: #"Ho'stile "T" \ $$"#, attributes: [
                StoredSchema.Attribute(name: "id", valueType: "UUID", isOptional: false),
                StoredSchema.Attribute(name: names[0], valueType: "String", isOptional: false),
                StoredSchema.Attribute(name: names[1], valueType: "Int", isOptional: false),
            ], uniqueConstraints: [[names[0]]], indices: indexed), namespace: namespace)
        }
        let table = layout(indexed: [])
        let id = UUID()
        let row = DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: table.entityName, primaryKey: .uuid(id)),
                                  values: ["id": .uuid(id), names[0]: .string("it's; \\ \"x\""), names[1]: .int(3)])
        var changed = row
        changed.values[names[1]] = .int(4)
        let indexed = layout(indexed: [[names[1]]])
        let alteration = try #require(TableAlteration([], from: table, to: indexed))
        let read = try store.session.transaction { sql in
            for statement in table.createStatements() { try sql.execute(statement) }
            try store.insertRows([row], into: table, sql)
            try store.updateRows([changed], in: table, sql)
            // The index on the renamed-into-place layout: the DO block that drops and makes them again.
            for (statement, binds) in try alteration.statements() { try sql.execute(statement, binds) }
            return try sql.query("SELECT \(indexed.selectList) FROM \(indexed.qualifiedName)").map { try indexed.snapshot(from: $0, at: 0) }
        }
        #expect(read.map(\.values) == [changed.values])
    }

    @Test("A namespace from a location's ?schema= with a quote opens a store of that name")
    func namespaceFromALocation() throws {
        let url = try #require(TestServer.url)
        let namespace = "o'neil-" + UUID().uuidString.prefix(8).lowercased()
        var configuration = try PostgresStoreConfiguration(location: StoreLocation(parsing: url + "?schema=" + namespace.replacingOccurrences(of: "'", with: "%27")))
        #expect(configuration.namespace == namespace)
        configuration.schema = Schema(PGNote.self)
        let container = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(PGNote(title: "kept", rank: 1))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<PGNote>()).map(\.title) == ["kept"])
    }

    @Test("A name holding NUL, which no PostgreSQL text can, is refused before anything is sent")
    func nulInANamespace() throws {
        var configuration = try TestServer.configuration(namespace: "bad\u{0}name")
        configuration.schema = Schema(PGNote.self)
        let error = try #require(throws: DataStoreError.self) { try PostgresStore(configuration) }
        #expect(error.code == .invalidConfiguration && error.message.contains("NUL"), "\(error.message)")
    }
}
