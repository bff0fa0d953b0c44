import DataStores
import Foundation
import MemoryStore
import Testing

/// Inserting a new instance with the id of a model the context holds is SwiftData's upsert: the
/// held instance takes the inserted values, relationships included, and stays the one tracked
/// (found by an adversary: the save threw "another instance of a model this context holds").
@Model final class UpsertBadge {
    @Attribute(.unique) var id: String
    var level: Int
    var notes: [UpsertNote] = []
    init(id: String, level: Int) { self.id = id; self.level = level }
}

@Model final class UpsertNote {
    var text: String
    var badge: UpsertBadge?
    init(text: String) { self.text = text }
}

@Model final class PlainKeyed {
    var id: Int
    var name: String
    init(id: Int, name: String) { self.id = id; self.name = name }
}

@Suite struct MacroModelIDUpsertTests {
    @Test func aSecondInstanceWithAHeldIDUpdatesTheHeldOne() throws {
        let container = try ModelContainer(for: UpsertBadge.self, UpsertNote.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let held = UpsertBadge(id: "a", level: 1)
        held.notes = [UpsertNote(text: "first")]
        context.insert(held)
        try context.save()

        let again = UpsertBadge(id: "a", level: 9)
        again.notes = [UpsertNote(text: "second")]
        context.insert(again)
        try context.save()
        #expect(held.level == 9, "the held instance shows the inserted values")
        #expect(held.notes.map(\.text) == ["second"], "and the inserted relationships")
        #expect(context.registeredModel(for: held.persistentModelID) as UpsertBadge? === held)
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<UpsertBadge>()).map { "\($0.id) \($0.level) \($0.notes.map(\.text))" }
                == ["a 9 [\"second\"]"])
        #expect(try reader.fetchCount(FetchDescriptor<UpsertNote>()) == 2, "the former note stays stored")

        held.level = 10
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<UpsertBadge>()).map(\.level) == [10], "the held one is still tracked")
    }

    @Test func aDeclaredIDWithoutUniqueUpsertsToo() throws {
        let container = try ModelContainer(for: PlainKeyed.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let held = PlainKeyed(id: 7, name: "seven")
        context.insert(held)
        try context.save()
        context.insert(PlainKeyed(id: 7, name: "SEVEN"))
        // Inserted twice before a save: the last insert wins.
        context.insert(PlainKeyed(id: 7, name: "Seven"))
        try context.save()
        #expect(held.name == "Seven")
        #expect(try ModelContext(container).fetch(FetchDescriptor<PlainKeyed>()).map(\.name) == ["Seven"])
        #expect(!context.hasChanges)
    }
}
