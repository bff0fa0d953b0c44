import Foundation
import JSONStore
import StoreProtocol
import StoreTestSupport
import Testing

@Suite struct ProcessTests {
    func open(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: HelperRecord.self, configurations: JSONStoreConfiguration(url: url))
    }

    /// Two processes saving into one store at once: nothing lost, tokens strictly increasing,
    /// and each writer's saves visible to the other.
    @Test(.enabled(if: FullTestRun.isEnabled)) func twoProcessesWriteOneStoreAtOnce() throws {
        let url = try temporaryDirectory().appending(path: "shared.json")
        _ = try open(url)   // create it first, so the two writers race on saves, not creation
        let saves = 1_000
        let app = try ChildProcess(["write", "json", url.path, "app", "\(saves)", "1"])
        let widget = try ChildProcess(["write", "json", url.path, "widget", "\(saves)", "1"])
        #expect(app.finish() == 0)
        #expect(widget.finish() == 0)
        func seenOthers(_ child: ChildProcess) -> Int {
            child.lines.first { $0.hasPrefix("seen-others ") }.flatMap { Int($0.dropFirst("seen-others ".count)) } ?? -1
        }
        // Whichever finished last had read every save of the other.
        #expect(max(seenOthers(app), seenOthers(widget)) == saves)

        let container = try open(url)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<HelperRecord>()) == 2 * saves)
        let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.map(\.transactionIdentifier) == Array(1...Int64(2 * saves)))
        #expect(transactions.filter { $0.author == "app" }.count == saves)
        #expect(transactions.filter { $0.author == "widget" }.count == saves)
        #expect(Set(transactions.map(\.processIdentifier)).count == 2, "two processes wrote")

        let reader = try ChildProcess(["read", "json", url.path])
        #expect(reader.finish() == 0)
        #expect(reader.lines == ["records \(2 * saves)", "transactions app \(saves)", "transactions widget \(saves)"])
    }

    /// Issue 28, the lost update across processes: this process holds a record, another one
    /// changes its payload and saves, then this one changes its author and saves. The store
    /// merges each save's changed attributes under its lock: both changes stay, and history
    /// names only the attribute each save changed.
    @Test func twoProcessesChangingDifferentAttributesOfOneModelKeepBoth() throws {
        let url = try temporaryDirectory().appending(path: "shared.json")
        let seed = ModelContext(try open(url))
        seed.insert(HelperRecord(batch: 0, item: 0, author: "seed", payload: "first"))
        try seed.save()
        let container = try open(url)
        let context = ModelContext(container)
        let record = try #require(try context.fetch(FetchDescriptor<HelperRecord>()).first)

        let other = try ChildProcess(["change", "json", url.path, "from the other process"])
        #expect(other.finish() == 0, "\(other.errorText)")
        #expect(other.lines == ["changed 1"])
        record.author = "this process"
        try context.save()

        let stored = try #require(try ModelContext(try open(url)).fetch(FetchDescriptor<HelperRecord>()).first)
        #expect(stored.payload == "from the other process", "the other process's change is kept")
        #expect(stored.author == "this process")
        let updates = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).dropFirst().map { transaction in
            transaction.changes.compactMap { change -> [String]? in
                guard case .update(let update as DefaultHistoryUpdate<HelperRecord>) = change else { return nil }
                return update.updatedAttributes.compactMap { HelperRecord.attributeName(of: $0) }
            }
        }
        #expect(updates == [[["payload"]], [["author"]]], "each save's updated attributes")
    }

    /// Issue 28, finding A across processes: this process and another one each add a note to one
    /// stored folder; the other saves first. The store applies each save's added members to the
    /// members it holds: the folder lists both notes, as each note names the folder.
    @Test func twoProcessesAddingNotesToOneFolderKeepBoth() throws {
        let url = try temporaryDirectory().appending(path: "folders.json")
        func open() throws -> ModelContainer {
            try ModelContainer(for: HelperFolder.self, configurations: JSONStoreConfiguration(url: url))
        }
        let seed = ModelContext(try open())
        seed.insert(HelperFolder(name: "inbox"))
        try seed.save()
        let context = ModelContext(try open())
        let folder = try #require(try context.fetch(FetchDescriptor<HelperFolder>()).first)
        let note = HelperNote(title: "from this process")
        context.insert(note)
        note.folder = folder

        let other = try ChildProcess(["add-note", "json", url.path, "from the other process"])
        #expect(other.finish() == 0, "\(other.errorText)")
        #expect(other.lines == ["added 1"])
        try context.save()

        let reader = ModelContext(try open())
        let stored = try #require(try reader.fetch(FetchDescriptor<HelperFolder>()).first)
        #expect(stored.notes.map(\.title) == ["from the other process", "from this process"], "both notes, in the order they were saved")
        #expect(try reader.fetch(FetchDescriptor<HelperNote>()).map { $0.folder?.name ?? "nil" } == ["inbox", "inbox"],
                "each note names the folder")
    }
}
