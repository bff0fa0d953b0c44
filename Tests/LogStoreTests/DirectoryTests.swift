import Foundation
import StoreProtocol
@_spi(FaultInjection) import StoreFiles
import LogStore
import StoreTestSupport
import Testing

/// Every name under `directory` (recursively, the lock file included) with its contents, and
/// whether it is a symbolic link: what "changes nothing" compares.
func tree(_ directory: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    guard let names = FileManager.default.subpaths(atPath: directory.path) else { return [:] }
    for name in names {
        let path = directory.appending(path: name).path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        switch attributes[.type] as? FileAttributeType {
        case .typeSymbolicLink?: result[name] = Data("link to \(try FileManager.default.destinationOfSymbolicLink(atPath: path))".utf8)
        case .typeDirectory?: result[name] = Data("directory".utf8)
        default: result[name] = try Data(contentsOf: URL(filePath: path))
        }
    }
    return result
}

func values(_ container: ModelContainer) throws -> [Double] {
    try ModelContext(container).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.timestamp)])).map(\.value)
}

func readOnly(_ directory: URL) -> LogStoreConfiguration {
    var settings = configuration(directory)
    settings.allowsSave = false
    return settings
}

func isSymbolicLink(_ url: URL) -> Bool {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) == .typeSymbolicLink
}

/// Issue 11, defects 2, 3, 6 and 7: which directory a log uses, and what an open leaves in it.
@Suite struct LogDirectoryTests {
    /// Defect 2: the directory is removed and re-created (empty, then holding another store)
    /// under open instances. Before the fix they read an empty log with no error, and a save
    /// wrote a segment into the new directory with no identity file.
    @Test func aDirectoryReplacedUnderAnOpenStoreIsReportedNotReadAsAnotherStore() throws {
        let directory = try temporaryDirectory().appending(path: "log")
        let (writer, writerStore) = try open(configuration(directory))
        try append(0..<4, perSave: 2, to: writer)
        let (reader, readerStore) = try open(readOnly(directory))
        #expect(try values(reader) == [0, 1, 2, 3])

        func expectReplaced(_ body: () throws -> Void, _ what: String) {
            #expect(Comment(rawValue: what)) {
                try body()
            } throws: { error in
                (error as? DataStoreError)?.code == .corruptStore && "\(error)".contains(directory.lastPathComponent)
            }
        }
        try FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        for (name, container, store) in [("writer", writer, writerStore), ("reader", reader, readerStore)] {
            expectReplaced({ _ = try store.fetchHistory(HistoryDescriptor<LogTransaction>()) }, "\(name): history of an empty directory")
            expectReplaced({ _ = try values(container) }, "\(name): fetch from an empty directory")
        }
        expectReplaced({ try append(10..<11, perSave: 1, to: writer) }, "a save into the re-created directory")
        #expect(try tree(directory).isEmpty, "the refused save wrote nothing")

        // Another store now lives at the path: the old instances still refuse, it reads its own.
        let (other, _) = try open(configuration(directory))
        try append(100..<103, perSave: 1, to: other)
        for (name, container, store) in [("writer", writer, writerStore), ("reader", reader, readerStore)] {
            expectReplaced({ _ = try store.fetchHistory(HistoryDescriptor<LogTransaction>()) }, "\(name): history of another store")
            expectReplaced({ _ = try values(container) }, "\(name): fetch from another store")
        }
        expectReplaced({ try append(10..<11, perSave: 1, to: writer) }, "a save into another store")
        #expect(try values(open(configuration(directory)).0) == [100, 101, 102], "the new store is untouched")
    }

    /// Defect 2: the identity file is swapped for another store's (a restore of the wrong backup)
    /// under an open instance, in the same directory: the instance refuses rather than adopting it.
    @Test func anIdentityFileOfAnotherStoreUnderAnOpenStoreIsReported() throws {
        let base = try temporaryDirectory()
        let directory = base.appending(path: "log"), other = base.appending(path: "other")
        let (writer, _) = try open(configuration(directory))
        try append(0..<2, perSave: 1, to: writer)
        _ = try open(configuration(other))
        let (reader, _) = try open(readOnly(directory))
        try FileManager.default.removeItem(at: directory.appending(path: "store.json"))
        try FileManager.default.copyItem(at: other.appending(path: "store.json"), to: directory.appending(path: "store.json"))
        let before = try tree(directory)
        for (name, container) in [("writer", writer), ("reader", reader)] {
            #expect(Comment(rawValue: name)) {
                _ = try values(container)
            } throws: { error in
                (error as? DataStoreError)?.code == .corruptStore && "\(error)".contains("store.json")
            }
        }
        #expect(throws: DataStoreError(.corruptStore, "")) { try append(2..<3, perSave: 1, to: writer) }
        #expect(try tree(directory) == before, "nothing written")
    }

    /// Defect 3: a read-only open (and its reads) of a log without a lock file creates nothing;
    /// before the fix the shared lock created `lock`.
    @Test func aReadOnlyOpenCreatesNothing() throws {
        let directory = try temporaryDirectory().appending(path: "log")
        do {
            let (container, _) = try open(configuration(directory))
            try append(0..<3, perSave: 1, to: container)
        }
        try FileManager.default.removeItem(at: directory.appending(path: "lock"))   // a copy, a restored backup
        let before = try tree(directory)
        let (container, store) = try open(readOnly(directory))
        #expect(try values(container) == [0, 1, 2])
        #expect(try store.fetchHistory(HistoryDescriptor<LogTransaction>()).count == 3)
        #expect(try tree(directory) == before, "nothing created or changed")

        let missing = directory.deletingLastPathComponent().appending(path: "missing/log")
        #expect(try values(open(readOnly(missing)).0) == [])
        #expect(!FileManager.default.fileExists(atPath: missing.deletingLastPathComponent().path), "no directory created")
    }

    /// Defect 3: opens that fail create nothing. Before the fix, a directory of another
    /// program's files became a log (store.json and lock written among them) or read as an empty
    /// one, segments without store.json were read, and opens refused for damage left a lock file.
    @Test func aFailedWritableOpenCreatesNothing() throws {
        let base = try temporaryDirectory()
        var cases: [(String, [String: Data])] = [
            ("foreign files", ["notes.txt": Data("mine".utf8), "photo.jpg": Data([0xFF, 0xD8])]),
            ("segments without store.json", ["segment-00000000000000000001.log": Data(count: 40)]),
            ("a store.json of another kind", ["store.json": Data(#"{"format":"something-else"}"#.utf8)]),
        ]
        // A log whose middle record is damaged, copied without its lock file.
        let damaged = base.appending(path: "source")
        do {
            let (container, _) = try open(configuration(damaged, segmentSize: 1 << 20))
            try append(0..<3, perSave: 1, to: container)
        }
        var files = try directoryContents(damaged)
        let segment = try #require(files.keys.first { $0.hasSuffix(".log") })
        files[segment]![30] ^= 0x20
        cases.append(("a damaged record in the middle", files))

        for (index, (what, contents)) in cases.enumerated() {
            let directory = base.appending(path: "case-\(index)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            for (name, data) in contents { try data.write(to: directory.appending(path: name)) }
            let before = try tree(directory)
            for settings in [readOnly(directory), configuration(directory)] {
                #expect(Comment(rawValue: "\(what), allowsSave \(settings.allowsSave)")) {
                    _ = try open(settings)
                } throws: { error in
                    (error as? DataStoreError)?.code == .corruptStore
                }
                #expect(try tree(directory) == before, "\(what), allowsSave \(settings.allowsSave): nothing created or changed")
            }
        }

        // An open that fails after creating the directory (an injected fault writing store.json)
        // removes what it created.
        let nested = base.appending(path: "new/nested/log")
        let hook = FileFaults.install { operation, path in
            operation == .create && path.hasPrefix(nested.path) ? FileFaults.Fault(code: ENOSPC) : nil
        }
        defer { FileFaults.remove(hook) }
        #expect(throws: DataStoreError(.ioFailure, "")) { _ = try open(configuration(nested)) }
        #expect(!FileManager.default.fileExists(atPath: base.appending(path: "new").path), "the created directories are gone")
    }

    /// Defect 6: a link as the log's directory is resolved at open. Re-pointing the link later
    /// does not change which files an open instance uses, and no write replaces the link.
    @Test func aSymbolicLinkedDirectoryIsResolvedAtOpen() throws {
        let base = try temporaryDirectory()
        let first = base.appending(path: "first"), second = base.appending(path: "second"), link = base.appending(path: "link")
        try append(100..<102, perSave: 1, to: open(configuration(second)).0)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: first)
        try FileManager.default.createDirectory(at: first, withIntermediateDirectories: false)

        let (writer, _) = try open(configuration(link))
        try append(0..<3, perSave: 1, to: writer)
        let (reader, _) = try open(readOnly(link))
        #expect(try values(reader) == [0, 1, 2])
        try FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: second)

        #expect(try values(writer) == [0, 1, 2], "the writer still reads the directory it opened")
        #expect(try values(reader) == [0, 1, 2], "the reader still reads the directory it opened")
        try append(3..<4, perSave: 1, to: writer)
        #expect(try values(reader) == [0, 1, 2, 3])
        #expect(isSymbolicLink(link), "the link is still a link")
        #expect(try values(open(configuration(first)).0) == [0, 1, 2, 3], "the saves went to the first directory")
        #expect(try values(open(configuration(link)).0) == [100, 101], "a new open follows the link to the second")
        #expect(try values(open(configuration(second)).0) == [100, 101])
    }

    /// Defect 6: a link to nothing is refused with a clear error, for a writer and a reader, and
    /// neither the link nor its target changes.
    @Test func aSymbolicLinkToNothingIsRefused() throws {
        let base = try temporaryDirectory()
        let link = base.appending(path: "link"), target = base.appending(path: "gone")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let before = try tree(base)
        for settings in [configuration(link), readOnly(link)] {
            #expect {
                _ = try open(settings)
            } throws: { error in
                guard let error = error as? DataStoreError else { return false }
                return error.code == .invalidConfiguration && error.message.contains("symbolic link") && error.message.contains("gone")
            }
            #expect(try tree(base) == before, "allowsSave \(settings.allowsSave): nothing created or changed")
        }
    }

    /// A path that is a file is refused, and the file is left as it was.
    @Test func aFileAsTheLogDirectoryIsRefused() throws {
        let base = try temporaryDirectory()
        let file = base.appending(path: "readings")
        try Data("not a directory".utf8).write(to: file)
        let before = try tree(base)
        for settings in [configuration(file), readOnly(file)] {
            #expect {
                _ = try open(settings)
            } throws: { error in
                (error as? DataStoreError)?.code == .invalidConfiguration && "\(error)".contains("not a directory")
            }
            #expect(try tree(base) == before, "allowsSave \(settings.allowsSave): nothing created or changed")
        }
    }

    /// Defect 7: temporary files a crash left (an identity file or index written but not yet
    /// renamed) are removed by the next writable open; a read-only open and other files are left.
    @Test func temporaryFilesACrashLeftAreRemovedByTheNextWritableOpen() throws {
        let directory = try temporaryDirectory().appending(path: "log")
        do {
            let (container, _) = try open(configuration(directory, segmentSize: 600))
            try append(0..<20, perSave: 2, to: container)
        }
        let index = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".index") })
        let leftovers = ["store.json.tmp-424242", "\(index).tmp-7"]
        for name in leftovers { try Data("half written".utf8).write(to: directory.appending(path: name)) }
        try Data("keep".utf8).write(to: directory.appending(path: "notes.tmp-1"))   // not the log's
        let before = try tree(directory)

        #expect(try values(open(readOnly(directory)).0) == (0..<20).map(Double.init))
        #expect(try tree(directory) == before, "a read-only open removes nothing")

        let (container, _) = try open(configuration(directory, segmentSize: 600))
        var expected = before
        for name in leftovers { expected[name] = nil }
        #expect(try tree(directory) == expected, "exactly the leftovers are gone")
        #expect(try values(container) == (0..<20).map(Double.init))
    }
}
