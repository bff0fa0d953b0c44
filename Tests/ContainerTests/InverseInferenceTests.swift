import Foundation
import MemoryStore
@testable import StoreProtocol
import Testing

/// `@Model` relationships pair with their inverse where there is exactly one candidate, as
/// SwiftData infers them; hand-written metadata stays as listed.
@Suite struct InverseInferenceTests {
    @Test func theOnlyCandidatesPair() throws {
        let schema = Schema(HandShelf.self)
        try schema.validate()
        #expect(schema.entity(for: HandShelf.self)?.relationships.map(\.description) == ["books -> [HandBook] (inverse shelf)"])
        #expect(schema.entity(for: HandBook.self)?.relationships.map(\.description) == ["shelf -> HandShelf? (inverse books)"])
    }

    @Test func aDeclaredInverseIsKeptAndAnUnrelatedRelationshipGetsNone() throws {
        let schema = Schema(HandTrip.self)
        #expect(schema.entity(for: HandTrip.self)?.relationships.map(\.description)
            == ["items -> [HandItem] (inverse trip)", "lodging -> HandLodging?"])
    }

    @Test func anInferredInverseIsKeptInStep() throws {
        let container = try ModelContainer(for: HandShelf.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let shelf = HandShelf()
        let book = HandBook("Fjords")
        book.shelf = shelf
        context.insert(book)
        try context.save()
        #expect(shelf.books.map(\.title) == ["Fjords"])
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<HandShelf>()).first)
        #expect(stored.books.map(\.title) == ["Fjords"])
    }
}
