import DataStores
import Foundation
import MemoryStore
import StoreProtocol
import StoreTestSupport
import Testing

@Suite struct MemoryStoreTests {
    @Test func seedDataIsThereWithoutHistory() throws {
        let configuration = MemoryStoreConfiguration(seed: { [Note("one"), Note("two")] })
        let container = try ModelContainer(for: Note.self, configurations: configuration)
        let texts = try ModelContext(container).fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)])).map(\.text)
        #expect(texts == ["one", "two"])
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }

    /// `Note` with its text renamed: a shared memory store is not migrated, so it is refused.
    @Model final class RenamedNote {
        static var entityName: String { Note.entityName }
        @Attribute(originalName: "text") var body: String
    }

    @Test func aSharedStoreRefusesModelsOfAnotherShape() throws {
        let name = "shared-\(UUID())"
        let first = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        let context = ModelContext(first)
        context.insert(Note("kept"))
        try context.save()
        #expect {
            try ModelContainer(for: RenamedNote.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        } throws: { error in
            (error as? DataStoreError)?.code == .incompatibleSchema
        }
        let again = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        #expect(try ModelContext(again).fetch(FetchDescriptor<Note>()).map(\.text) == ["kept"])
    }

    @Test func storesSharedByNameSeeEachOthersSaves() throws {
        let name = "shared-\(UUID())"
        let first = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        let second = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        let context = ModelContext(first)
        context.insert(Note("shared"))
        try context.save()
        #expect(try ModelContext(second).fetch(FetchDescriptor<Note>()).map(\.text) == ["shared"])
        #expect(first.stores[0].identifier == second.stores[0].identifier)
        let unshared = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration(name: name))
        #expect(try ModelContext(unshared).fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @Test func retentionKeepsTheNewestTransactionsAndExpiresOlderTokens() throws {
        let container = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration(historyRetention: .transactions(2)))
        let context = ModelContext(container)
        var tokens: [DefaultHistoryToken] = []
        for index in 0..<4 {
            context.insert(Note("\(index)"))
            try context.save()
            tokens.append(try #require(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token))
        }
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
        #expect(throws: HistoryError(.historyTokenExpired, "")) {
            try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: tokens[0]))
        }
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: tokens[1])).count == 2)
    }

    @Test func eraseRemovesDataAndExpiresTokens() throws {
        let container = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        context.insert(Note("a"))
        try context.save()
        context.insert(Note("b"))
        try context.save()
        let first = try #require(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first?.token)
        try container.erase()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 0)
        #expect(throws: HistoryError(.historyTokenExpired, "")) {
            try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: first))
        }
    }

    @Test func aStoreWithoutSchemaRefusesToOpen() {
        #expect(throws: DataStoreError(.invalidSchema, "")) { try MemoryStore(MemoryStoreConfiguration()) }
    }
}
