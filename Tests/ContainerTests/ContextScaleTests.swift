import Foundation
import MemoryStore
import StoreProtocol
import StoreTestSupport
import Testing

/// A long-lived context (issue 16): stored models nothing else holds are compared once more and
/// forgotten, so saves stop encoding them; nothing changed is ever lost that way.
@Suite struct ContextScaleTests {
    func seeded(_ count: Int) throws -> ModelContainer {
        let container = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        for index in 0..<count { context.insert(Note("note \(index)")) }
        try context.save()
        return container
    }

    /// Fetches every note and lets them go; returns their identifiers.
    @inline(never)
    func fetchAndLetGo(_ context: ModelContext) throws -> [PersistentIdentifier] {
        try context.fetch(FetchDescriptor<Note>()).map(\.persistentModelID)
    }

    /// Changes one note and lets it go, unsaved.
    @inline(never)
    func changeAndLetGo(_ context: ModelContext, _ text: String) throws {
        let note = try #require(try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == text })).first)
        note.text = text + " (changed)"
    }

    /// Every model is tracked by its backing, so a save does not look at each fetched model:
    /// settled models let go are forgotten when the context holds twice as many as it last
    /// swept (from 1,024 on), which 1,100 fetched models reach at the first save.
    @Test func modelsNoOneHoldsAreForgottenAtTheNextSave() throws {
        let context = ModelContext(try seeded(1_100))
        let identifiers = try fetchAndLetGo(context)
        let held = try #require(try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "note 7" })).first)
        #expect(identifiers.allSatisfy { (context.registeredModel(for: $0) as Note?) != nil }, "registered until the next save")
        #expect(!context.hasChanges)
        try context.save()
        let stillRegistered = identifiers.filter { (context.registeredModel(for: $0) as Note?) != nil }
        #expect(stillRegistered == [held.persistentModelID], "only the note still held stays registered")
    }

    @Test func aModelChangedAndLetGoBeforeTheSaveIsSaved() throws {
        let container = try seeded(10)
        let context = ModelContext(container)
        _ = try fetchAndLetGo(context)
        try changeAndLetGo(context, "note 3")
        #expect(context.hasChanges, "the change is seen though no one holds the note")
        try context.save()
        let texts = try ModelContext(container).fetch(FetchDescriptor<Note>()).map(\.text)
        #expect(texts.contains("note 3 (changed)"))
        #expect(!context.hasChanges)
    }

    @Test func aModelStillHeldIsTheSameInstanceAfterSaves() throws {
        let context = ModelContext(try seeded(10))
        let held = try #require(try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "note 1" })).first)
        _ = try fetchAndLetGo(context)
        held.text = "note 1 (changed)"
        try context.save()
        try context.save()
        let again = try #require(try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "note 1 (changed)" })).first)
        #expect(again === held)
        #expect(try context.fetch(FetchDescriptor<Note>()).contains { $0 === held })
    }
}
