import Foundation
import LogStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 11: the index and identity files steer what happens to acknowledged records, so a
/// damaged one that still parses must not be believed.
@Suite struct ChecksummedFilesTests {
    /// A log of ten sealed segments (one save of three readings each) and a segment being written.
    func sealedLog() throws -> URL {
        let directory = try temporaryDirectory()
        let (container, _) = try open(configuration(directory, segmentSize: 700))
        try append(0..<33, perSave: 3, to: container)
        return directory
    }

    /// `text` with the first occurrence of `old` replaced: a one-character change, as a bit flip makes.
    func replacing(_ old: String, with new: String, in file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        let range = try #require(text.range(of: old), "\(file.lastPathComponent) holds \(old)")
        try text.replacingCharacters(in: range, with: new).write(to: file, atomically: false, encoding: .utf8)
    }

    /// One bit flipped in a count or a time of an index file used to hide readings from fetches,
    /// counts and range reads; the index is now checked and, when damaged, the segment read instead.
    @Test func aDamagedIndexFileIsNotBelieved() throws {
        let directory = try sealedLog()
        let index = directory.appending(path: "segment-00000000000000000004.index")
        // Segment 4 holds minutes 9, 10, 11. "3" -> "2" and "1767226140" -> "1767226180" are one bit each.
        try replacing("\"Reading\":3", with: "\"Reading\":2", in: index)
        try replacing("\"earliest\":1767226140", with: "\"earliest\":1767226180", in: index)
        for allowsSave in [false, true] {
            var settings = configuration(directory, segmentSize: 700)
            settings.allowsSave = allowsSave
            let context = ModelContext(try open(settings).0)
            #expect(try context.fetchCount(FetchDescriptor<Reading>()) == 33, "allowsSave \(allowsSave)")
            let nine = minute(9)
            #expect(try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.timestamp == nine })).map(\.value) == [9],
                    "allowsSave \(allowsSave)")
            let low = minute(9), high = minute(11)
            #expect(try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.timestamp >= low && $0.timestamp <= high }))
                .map(\.value).sorted() == [9, 10, 11], "allowsSave \(allowsSave)")
        }
        // The writable open rewrote the index from the segment.
        let info = try String(contentsOf: index, encoding: .utf8)
        #expect(info.contains("\"Reading\":3") && info.contains("\"earliest\":1767226140"), "\(info)")
    }

    /// One bit flipped in `droppedThrough` ("0" -> "4") used to make a writable open delete the
    /// four oldest segments as if retention had dropped them. Now the open refuses, deleting nothing.
    @Test func aDamagedIdentityFileDeletesNothing() throws {
        let directory = try sealedLog()
        let before = try directoryContents(directory)
        let identity = directory.appending(path: "store.json")
        try replacing("\"droppedThrough\":0", with: "\"droppedThrough\":4", in: identity)
        let damaged = try directoryContents(directory)
        for allowsSave in [false, true] {
            var settings = configuration(directory, segmentSize: 700)
            settings.allowsSave = allowsSave
            #expect {
                let context = ModelContext(try open(settings).0)
                _ = try context.fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 0 }))
            } throws: { error in
                (error as? DataStoreError)?.code == .corruptStore && "\(error)".contains("store.json")
            }
            #expect(try directoryContents(directory) == damaged, "allowsSave \(allowsSave): nothing was changed")
        }
        #expect(Set(damaged.keys) == Set(before.keys), "no segment was deleted")
    }

    /// Logs written before the checksums: their identity and index files carry none. They open
    /// and read whole, and a writable open adds the checksums; a flipped `"checksum"` key does not
    /// pass for such an old file.
    @Test func logsWrittenBeforeChecksumsOpenAndGainThem() throws {
        let directory = try sealedLog()
        // What versions before the checksums wrote: no "checksum", and in store.json no "timestamps"
        // and no "schema" (format version 1).
        func stripChecksum(_ name: String) throws {
            let file = directory.appending(path: name)
            let text = try String(contentsOf: file, encoding: .utf8)
            guard name == "store.json" else {
                let stripped = text.replacingOccurrences(of: #""checksum":[0-9]+,"#, with: "", options: .regularExpression)
                #expect(stripped != text, "\(name) had a checksum")
                try stripped.write(to: file, atomically: false, encoding: .utf8)
                return
            }
            var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(object["checksum"] != nil, "\(name) had a checksum")
            for key in ["checksum", "timestamps", "schema", "migrations"] { object[key] = nil }
            object["version"] = 1
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]).write(to: file)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".index") || $0 == "store.json" }
        for name in names { try stripChecksum(name) }

        var readOnly = configuration(directory, segmentSize: 700)
        readOnly.allowsSave = false
        #expect(try ModelContext(try open(readOnly).0).fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 0 })) == 33)
        #expect(try ModelContext(try open(configuration(directory, segmentSize: 700)).0).fetchCount(FetchDescriptor<Reading>()) == 33)
        for name in names {
            #expect(try String(contentsOf: directory.appending(path: name), encoding: .utf8).contains("\"checksum\":"), "\(name) gained a checksum")
        }

        // An old identity file with a damaged key is damaged, not old.
        try stripChecksum("store.json")
        try replacing("\"droppedThrough\"", with: "\"droppedThrougx\"", in: directory.appending(path: "store.json"))
        #expect(throws: DataStoreError.self) { try open(configuration(directory, segmentSize: 700)) }
    }
}
