import Foundation
import StoreProtocol
@_spi(FaultInjection) import StoreFiles
import LogStore
import StoreTestSupport
import Testing

/// Issue 11, found by the two-writer stress test: an open that failed after creating the log
/// directory removed it with everything in it, though another process opening the same new log
/// at once had meanwhile saved into it (one round lost an acknowledged save: history empty,
/// expected a transaction).
@Suite struct ConcurrentCreationTests {
    @Test func aFailedOpenLeavesALogAnotherWriterCreatedInItsDirectory() throws {
        let base = try temporaryDirectory()
        let directory = base.appending(path: "new/log")
        // What the other writer's log holds once it has saved, made beside it.
        let other = base.appending(path: "other")
        try append(0..<3, perSave: 3, to: try open(configuration(other)).0)
        let written = try FileManager.default.contentsOfDirectory(atPath: other.path).filter { $0 != "lock" }

        // This open created the directory; while it creates store.json, the other writer's files
        // appear (as when the other process's open and save came first), and this open fails.
        let hook = FileFaults.install { operation, path in
            guard operation == .create, path.hasPrefix(directory.path + "/store.json") else { return nil }
            for name in written {
                try? FileManager.default.copyItem(atPath: other.appending(path: name).path, toPath: directory.appending(path: name).path)
            }
            return FileFaults.Fault(code: ENOSPC)
        }
        #expect(throws: DataStoreError.self) { _ = try open(configuration(directory)) }
        FileFaults.remove(hook)

        #expect(FileManager.default.fileExists(atPath: directory.appending(path: "store.json").path), "the other writer's log is left")
        #expect(try ModelContext(try open(configuration(directory)).0).fetch(FetchDescriptor<Reading>()).map(\.value).sorted() == [0, 1, 2])
    }

    /// Control: with nothing else in it, the directory a failed open created is still removed.
    @Test func aFailedOpenStillRemovesTheDirectoryItCreated() throws {
        let base = try temporaryDirectory()
        let directory = base.appending(path: "new/nested/log")
        let hook = FileFaults.install { operation, path in
            operation == .create && path.hasPrefix(directory.path) ? FileFaults.Fault(code: ENOSPC) : nil
        }
        #expect(throws: DataStoreError.self) { _ = try open(configuration(directory)) }
        FileFaults.remove(hook)
        #expect(!FileManager.default.fileExists(atPath: base.appending(path: "new").path))
    }
}
