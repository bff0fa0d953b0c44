import Foundation
import JSONStore
import StoreProtocol
import StoreTestSupport
import Testing

@Suite struct FileFormatTests {
    @Test func theBaseFileIsReadableJSONWithOneRowPerLine() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        let container = try openContainer(url)
        try save(["Reykjavík", "Oslo"], to: container)
        try (container.stores[0] as? JSONStore)?.compact()
        let text = try String(contentsOf: url, encoding: .utf8)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "swift-data-stores/json-store")
        #expect(object?["version"] as? Int == 3)
        #expect(text.split(separator: "\n").contains { $0.contains("\"title\":\"Reykjavík\"") })
        #expect(try Data(contentsOf: URL(filePath: url.path + ".journal")).isEmpty, "compaction empties the journal")
        #expect(try titles(try openContainer(url)) == ["Oslo", "Reykjavík"])
    }

    @Test func compactionKeepsDataHistoryAndOtherInstancesInStep() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let writer = try openContainer(url, compactionThreshold: 256)
        let reader = try openContainer(url)
        try save((0..<40).map { "e\($0)" }, to: writer, author: "writer")
        #expect(try titles(reader).count == 40, "another instance reads through compactions")
        #expect(try transactionCount(reader) == 40)
        let journal = try FileManager.default.attributesOfItem(atPath: url.path + ".journal")[.size] as? Int ?? 0
        #expect(journal < 40 * 200, "the journal was folded into the base (\(journal) bytes left)")
        #expect(try transactionCount(try openContainer(url)) == 40)
    }

    @Test func aTornLastLineIsCutBackAtEveryByteOffset() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        try save(["a", "b", "c"], to: try openContainer(url))
        let journalPath = url.path + ".journal"
        let whole = try Data(contentsOf: URL(filePath: journalPath))
        let lines = whole.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let lastLineStart = whole.count - lines[lines.count - 2].count - 1
        let base = try Data(contentsOf: url)
        for cut in lastLineStart..<whole.count {
            try whole.prefix(cut).write(to: URL(filePath: journalPath))
            try base.write(to: url)
            let container = try openContainer(url)
            #expect(try titles(container) == ["a", "b"], "cut at byte \(cut)")
            #expect(try transactionCount(container) == 2, "cut at byte \(cut)")
            try save(["d"], to: container)
            let reopened = try openContainer(url)
            #expect(try titles(reopened) == ["a", "b", "d"], "append after a cut at byte \(cut)")
            #expect(try transactionCount(reopened) == 3, "cut at byte \(cut)")
        }
    }

    @Test func aDamagedLineInTheMiddleIsAnErrorAndChangesNothing() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        try save(["a", "b", "c"], to: try openContainer(url))
        var journal = try Data(contentsOf: URL(filePath: url.path + ".journal"))
        let firstNewline = try #require(journal.firstIndex(of: UInt8(ascii: "\n")))
        journal[firstNewline - 5] ^= 0x01
        try journal.write(to: URL(filePath: url.path + ".journal"))
        let before = try directoryContents(directory)
        do {
            _ = try openContainer(url)
            Issue.record("opening a store with a damaged journal line must throw")
        } catch let error as DataStoreError {
            #expect(error.code == .corruptStore)
            #expect(error.message.contains("byte 0"), "the message names the offset: \(error.message)")
        }
        #expect(try directoryContents(directory) == before, "a failed open leaves the files untouched")
    }

    @Test(arguments: [
        ("not json at all", "not a JSON store"),
        ("{\"hello\": 1}", "not a JSON store"),
        ("{\"format\":\"swift-data-stores/json-store\",\"version\":4}", "version 4"),
        ("{\"format\":\"swift-data-stores/json-store\",\"version\":1,\"storeIdentifier\":\"x\"", "not a JSON store"),
        ("{\"format\":\"swift-data-stores/json-store\",\"version\":1,\"storeIdentifier\":5}", "damaged"),
    ])
    func foreignOrDamagedBaseFilesAreTypedErrors(_ contents: String, _ expected: String) throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        try Data(contents.utf8).write(to: url)
        do {
            _ = try openContainer(url)
            Issue.record("opening \(contents) must throw")
        } catch let error as DataStoreError {
            #expect(error.code == .corruptStore)
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.message.contains(url.path), "the message names the file")
        }
        #expect(try Data(contentsOf: url) == Data(contents.utf8), "the file is untouched")
    }

    @Test func aMissingDirectoryIsATypedError() throws {
        let url = try temporaryDirectory().appending(path: "missing/store.json")
        #expect(throws: DataStoreError(.invalidConfiguration, "")) { try openContainer(url) }
    }

    @Test func aReadOnlyOpenOfAMissingStoreCreatesNothing() throws {
        let directory = try temporaryDirectory()
        let container = try openContainer(directory.appending(path: "store.json"), allowsSave: false)
        #expect(try titles(container) == [])
        #expect(try directoryContents(directory).isEmpty)
    }

    @Test func twoInstancesInOneProcessSeeEachOthersSavesAndHistory() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let app = try openContainer(url), widget = try openContainer(url)
        try save(["from app"], to: app, author: "app")
        let token = try #require(try widget.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        try save(["from widget"], to: widget, author: "widget")
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(after: token)
        descriptor.predicate = #Predicate { $0.author == "widget" }
        #expect(try app.fetchHistory(descriptor).count == 1)
        #expect(try titles(app) == ["from app", "from widget"])
    }

    @Test func retentionIsPersistedAndExpiresTokens() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let configuration = JSONStoreConfiguration(url: url, historyRetention: .transactions(3))
        let container = try ModelContainer(for: Entry.self, configurations: configuration)
        try save((0..<5).map { "e\($0)" }, to: container)
        let reopened = try ModelContainer(for: Entry.self, configurations: configuration)
        let kept = try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(kept.map(\.transactionIdentifier) == [3, 4, 5])
        #expect(throws: HistoryError(.historyTokenExpired, "")) {
            try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
                after: DefaultHistoryToken(storeIdentifier: reopened.stores[0].identifier, transactionNumber: 1)))
        }
    }
}
