import Foundation
import JSONStore
import StoreBuildingBlocks
import StoreFiles
import StoreProtocol
import StoreTestSupport
import Testing

/// One rule for the tagged JSON format, on every path that reads it: an object with a `$` key is
/// a one-key tagged value of its tag's form, or an error. `{"$uuid": 5}` is an error (not an
/// object): an object whose own keys start with `$` is written wrapped, `{"$object": {"$uuid": 5}}`.
@Suite struct TaggedValueTests {
    @Test(arguments: [#"{"$uuid":5}"#, #"{"$uuid":"not a uuid"}"#, #"{"$date":"x"}"#, #"{"$foo":1}"#, #"{"$uuid":"x","a":1}"#])
    func aMalformedTaggedValueIsAnErrorOnEveryPath(_ text: String) throws {
        // The JSON codec, and SnapshotValue's Codable conformance.
        #expect(throws: SnapshotJSON.SyntaxError.self) { try SnapshotJSON.parse(Data(text.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SnapshotValue.self, from: Data(text.utf8)) }

        // A JSON store's journal line, whole (its checksum and length hold), with it as a row's value.
        let url = try temporaryDirectory().appending(path: "store.json")
        try save(["needle"], to: try openContainer(url))
        let journal = URL(filePath: url.path + ".journal")
        let line = String(decoding: try Data(contentsOf: journal), as: UTF8.self)
        let parts = line.dropLast().split(separator: " ", maxSplits: 2)   // <crc> <length> <entry>
        try #require(parts.count == 3)
        let entry = String(parts[2]).replacingOccurrences(of: #""title":"needle""#, with: #""title":"# + text)
        try #require(entry != String(parts[2]), "the row's value is in the journal line")
        let body = "\(entry.utf8.count) \(entry)"
        try Data((String(format: "%08x ", CRC32.checksum(Data(body.utf8))) + body + "\n").utf8).write(to: journal)
        let before = try directoryContents(url.deletingLastPathComponent())
        for allowsSave in [false, true] {
            do {
                _ = try openContainer(url, allowsSave: allowsSave)
                Issue.record("\(text) in a journal line opened (allowsSave: \(allowsSave))")
            } catch let error as DataStoreError {
                #expect(error.code == .corruptStore, "\(error)")
            }
        }
        #expect(try directoryContents(url.deletingLastPathComponent()) == before, "a refused open changes no file")
    }

    @Test func anObjectWithDollarKeysIsWrittenWrappedAndReadBackAsItself() throws {
        let value = SnapshotValue.object(["$uuid": .int(5)])
        let direct = try SnapshotJSON.encode(value)
        #expect(String(decoding: direct, as: UTF8.self) == #"{"$object":{"$uuid":5}}"#)
        #expect(try SnapshotJSON.parse(direct) == value)
        #expect(try JSONDecoder().decode(SnapshotValue.self, from: direct) == value)
        #expect(try SnapshotJSON.parse(try JSONEncoder().encode(value)) == value)
    }
}
