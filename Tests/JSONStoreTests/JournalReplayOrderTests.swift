import Foundation
import JSONStore
import DataStores
import StoreTestSupport
import Testing

@Model final class Badge {
    var id = UUID()
    @Attribute(.unique) var code: String
    init(code: String) { self.code = code }
}

/// A save is read back from the journal (by another process, or on reopening) as it was saved.
/// The journal entry holds the rows as the save left them and the ids it deleted; replayed rows
/// before deletions, a save that deleted a model and gave its unique value to a new one was
/// refused on reading ("holds rows that break a unique constraint": the store no longer opened,
/// after a save it had acknowledged), and a model deleted and inserted again under its id in one
/// save was read back missing.
@Suite struct JournalReplayOrderTests {
    func open(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Badge.self, configurations: JSONStoreConfiguration(url: url))
    }

    @Test func aUniqueValueHandedOnInOneSaveReadsBack() throws {
        let url = URL.temporaryDirectory.appending(path: "replay-\(UUID().uuidString).json")
        defer { for suffix in ["", ".journal", ".lock", ".access-lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let writer = try open(url)
        let context = ModelContext(writer)
        let old = Badge(code: "gold")
        context.insert(old)
        try context.save()
        let reader = try open(url)   // holds the state before the next save
        context.delete(old)
        let new = Badge(code: "gold")
        context.insert(new)
        try context.save()

        // The other container catches up from the journal; a reopened one reads it at open.
        for container in [reader, try open(url)] {
            let badges = try ModelContext(container).fetch(FetchDescriptor<Badge>())
            #expect(badges.map(\.id) == [new.id])
        }
    }

    @Test func aModelDeletedAndInsertedAgainInOneSaveReadsBack() throws {
        let url = URL.temporaryDirectory.appending(path: "replay-\(UUID().uuidString).json")
        defer { for suffix in ["", ".journal", ".lock", ".access-lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let writer = try open(url)
        let context = ModelContext(writer)
        let first = Badge(code: "first")
        context.insert(first)
        try context.save()
        let id = first.id
        context.delete(first)
        let again = Badge(code: "again")
        again.id = id
        context.insert(again)
        try context.save()
        let stored = try ModelContext(writer).fetch(FetchDescriptor<Badge>()).map(\.code)

        let reopened = try ModelContext(try open(url)).fetch(FetchDescriptor<Badge>()).map(\.code)
        #expect(reopened == stored)
    }
}
