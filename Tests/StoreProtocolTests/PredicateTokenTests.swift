import DataStores
import Foundation
import MemoryStore
@testable import StoreProtocol
import Testing

/// A token compared in a history predicate is checked as `after` is: found wherever the
/// predicate holds it, and checked per store of a container.
@Suite struct PredicateTokenTests {
    @Model final class Note {
        var text: String
        init(_ text: String) { self.text = text }
    }

    @Model final class Tag {
        var name: String
        init(_ name: String) { self.name = name }
    }

    @Test func tokensAreFoundWhereverThePredicateHoldsThem() {
        let first = DefaultHistoryToken(storeIdentifier: "a", transactionNumber: 1)
        let second = DefaultHistoryToken(storeIdentifier: "a", transactionNumber: 2)
        let optional: DefaultHistoryToken? = DefaultHistoryToken(storeIdentifier: "b", transactionNumber: 3)
        let author = "widget"
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate {
            ($0.author == author || !($0.token <= first)) && (second > $0.token || $0.token == optional!)
        })
        #expect(descriptor.predicateTokens == [first, second, optional!])
        descriptor.predicate = #Predicate { $0.author == author }
        #expect(descriptor.predicateTokens.isEmpty)
        descriptor.predicate = nil
        #expect(descriptor.predicateTokens.isEmpty)
    }

    /// Two stores: only the store whose history was deleted past the token's position for it
    /// makes the fetch throw; a position in a store the container does not hold is left to the
    /// predicate.
    @Test func eachStoreChecksItsOwnPosition() throws {
        var notes = MemoryStoreConfiguration()
        notes.schema = Schema([Note.self])
        var tags = MemoryStoreConfiguration()
        tags.schema = Schema([Tag.self])
        let container = try ModelContainer(for: Schema([Note.self, Tag.self]), configurations: [notes, tags])
        let context = ModelContext(container)
        for index in 0..<2 {
            context.insert(Note("n\(index)"))
            try context.save()
            context.insert(Tag("t\(index)"))
            try context.save()
        }
        let all = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let tagStore = try container.store(for: Tag.self).identifier
        let firstTag = try #require(all.first { $0.storeIdentifier == tagStore })
        try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.storeIdentifier == tagStore }))
        let early = all[0].token   // positions in the note store only
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > early })).count == 1)
        let tagToken = firstTag.token
        #expect(throws: HistoryError(.historyTokenExpired, "")) {
            try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > tagToken }))
        }
        var elsewhere = early
        elsewhere.positions["a store of another container"] = 7
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > elsewhere })).count == 1)
    }
}
