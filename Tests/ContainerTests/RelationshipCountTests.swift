import Foundation
import MemoryStore
@testable import StoreProtocol
import Testing

/// `@Relationship(minimumModelCount:maximumModelCount:)` is enforced at save, as SwiftData does
/// (not when the array is changed), with a typed error; the store is left as it was.
@Suite struct RelationshipCountTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: HandBag.self, configurations: MemoryStoreConfiguration())
    }

    @Test func theBoundsAreInTheSchema() throws {
        let bag = try #require(Schema(HandBag.self).entity(for: HandBag.self))
        #expect(bag.relationships.map(\.minimumModelCount) == [1])
        #expect(bag.relationships.map(\.maximumModelCount) == [2])
    }

    @Test func tooFewOrTooManyIsRefusedAtSave() throws {
        let container = try container()
        let context = ModelContext(container)
        let bag = HandBag("carry-on")
        context.insert(bag)
        do {
            try context.save()
            Issue.record("an empty bag was saved")
        } catch let error as ModelContextError {
            #expect(error.code == .relationshipCountViolation)
            #expect(error.message.contains("things") && error.message.contains("minimumModelCount of 1"), "\(error.message)")
        }
        bag.things = [HandLodging("a"), HandLodging("b"), HandLodging("c")]   // accepted while changing
        #expect(throws: ModelContextError.relationshipCountViolation) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<HandBag>()) == 0, "nothing was saved")
        bag.things.removeLast()
        try context.save()
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<HandBag>()).first)
        #expect(stored.things.count == 2)
    }

    @Test func anUpdateBeyondTheBoundIsRefused() throws {
        let container = try container()
        let context = ModelContext(container)
        let bag = HandBag("carry-on")
        bag.things = [HandLodging("a")]
        context.insert(bag)
        try context.save()
        bag.things.removeAll()
        #expect(throws: ModelContextError.relationshipCountViolation) { try context.save() }
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<HandBag>()).first)
        #expect(stored.things.count == 1)
    }
}
