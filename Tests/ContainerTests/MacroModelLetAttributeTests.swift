import DataStores
import Foundation
import MemoryStore
import Testing

/// A `let` attribute without a default value in an `@Model` class is persisted and never changes:
/// the container accepts it (the expansion's `assignStoredValues` sets the others), it saves and
/// fetches, and a rollback of another attribute leaves it (found by an adversary: the container
/// refused it, "only `id` may be a `let`").
@Model final class StampedEntry {
    let created: Date
    var title: String
    init(created: Date, title: String) { self.created = created; self.title = title }
}

@Suite struct MacroModelLetAttributeTests {
    @Test func aLetAttributeIsSavedFetchedAndKeptByRollback() throws {
        let container = try ModelContainer(for: StampedEntry.self, configurations: MemoryStoreConfiguration())
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
        let context = ModelContext(container)
        context.insert(StampedEntry(created: created, title: "first"))
        try context.save()

        let reader = ModelContext(container)
        let entry = try #require(try reader.fetch(FetchDescriptor<StampedEntry>()).first)
        #expect(entry.created == created && entry.title == "first")
        entry.title = "changed"
        reader.rollback()
        #expect(entry.title == "first" && entry.created == created)
        entry.title = "second"
        try reader.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<StampedEntry>()).map { "\($0.title) \($0.created == created)" }
                == ["second true"])
    }
}
