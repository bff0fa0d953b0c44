import Foundation
import JSONStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 11: a store must know which files it read. Stat fields cannot tell (inode numbers are
/// reused after a compaction's renames); a link must not split a store in two; nothing is created
/// by an open that fails or only reads.
@Suite struct FileIdentityTests {
    /// Two instances take turns incrementing one counter through compactions (a tiny threshold)
    /// and retention (so the base keeps about the same size): every increment survives. With
    /// identity by (inode, device, size) a stale instance took a same-sized new base for its old
    /// one and wrote increments over the other's.
    @Test func twoInstancesIncrementingThroughCompactionsLoseNothing() throws {
        let url = try temporaryDirectory().appending(path: "counter.json")
        func open() throws -> ModelContainer {
            try ModelContainer(for: Entry.self, configurations: JSONStoreConfiguration(
                url: url, historyRetention: .transactions(1), compactionThreshold: 1))
        }
        let instances = [try open(), try open()]
        try save(["counter"], to: instances[0])
        var generator = SeededGenerator(seed: 11)
        let increments = 400
        for _ in 0..<increments {
            let container = instances[Int.random(in: 0...1, using: &generator)]
            let context = ModelContext(container)
            let counter = try #require(try context.fetch(FetchDescriptor<Entry>()).first)
            counter.count += 1
            try context.save()
        }
        for container in instances + [try open()] {
            #expect(try ModelContext(container).fetch(FetchDescriptor<Entry>()).map(\.count) == [increments])
            let last = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last
            #expect(last?.transactionIdentifier == Int64(increments + 1), "transaction numbers were never reused")
        }
    }

    /// A store deleted and created anew at the same path while a container has it open is not
    /// mixed with the old one: the open container refuses to read it.
    @Test func aStoreRecreatedAtItsPathIsNotMixedWithTheOldOne() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        let old = try openContainer(url)
        try save(["old"], to: old)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            try FileManager.default.removeItem(at: directory.appending(path: name))
        }
        let new = try openContainer(url)
        try save(["new"], to: new)
        #expect(throws: DataStoreError(.corruptStore, "")) { try titles(old) }
        #expect(throws: DataStoreError(.corruptStore, "")) { try save(["stale"], to: old) }
        #expect(try titles(try openContainer(url)) == ["new"])
    }

    /// A journal entry older than one before it (a writer that appended from a stale view) is
    /// damage, not an entry to skip.
    @Test func anOldEntryAfterANewerOneIsCorruption() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        try save(["a", "b"], to: try openContainer(url))
        let journal = URL(filePath: url.path + ".journal")
        let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        try Data((lines.joined(separator: "\n") + "\n" + lines[0] + "\n").utf8).write(to: journal)
        let before = try Data(contentsOf: journal)
        #expect(throws: DataStoreError(.corruptStore, "")) { try openContainer(url) }
        #expect(try Data(contentsOf: journal) == before, "the journal was left untouched")
    }

    /// Through a symbolic link the store reads and writes its target's files; compaction keeps
    /// the link a link.
    @Test func aLinkedStorePathIsTheTargetsStore() throws {
        let directory = try temporaryDirectory()
        let target = directory.appending(path: "data/real.json")
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let link = directory.appending(path: "link.json")
        try save(["first"], to: try openContainer(target))
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)

        let linked = try openContainer(link, compactionThreshold: 1)
        #expect(try titles(linked) == ["first"])
        try save((0..<10).map { "through link \($0)" }, to: linked)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path, "still a link")
        #expect(try titles(try openContainer(target)).count == 11)
        #expect(!FileManager.default.fileExists(atPath: link.path + ".journal"), "no journal of the link's own")

        let dangling = directory.appending(path: "dangling.json")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: directory.appending(path: "none/x.json").path)
        #expect(throws: DataStoreError(.invalidConfiguration, "")) { try openContainer(dangling) }
    }

    /// Opens that fail, or only read, create no file; a writable open removes the temporary
    /// files a crashed compaction left.
    @Test func opensCreateOnlyWhatTheyNeed() throws {
        let directory = try temporaryDirectory()
        let foreign = directory.appending(path: "notes.json")
        try Data("{\"not\":\"a store\"}".utf8).write(to: foreign)
        #expect(throws: DataStoreError(.corruptStore, "")) { try openContainer(foreign) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["notes.json"])

        let url = directory.appending(path: "store.json")
        try save(["a"], to: try openContainer(url))
        try FileManager.default.removeItem(atPath: url.path + ".lock")
        _ = try titles(try openContainer(url, allowsSave: false))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".lock"), "a read-only open creates no lock file")

        let leftovers = [url.path + ".tmp-4242", url.path + ".journal.tmp-4243"]
        for path in leftovers { try Data("partial".utf8).write(to: URL(filePath: path)) }
        _ = try openContainer(url, allowsSave: false)
        #expect(leftovers.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "a reader removes nothing")
        #expect(try titles(try openContainer(url)) == ["a"])
        #expect(leftovers.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "a writer removes a crash's temporary files")
    }
}
