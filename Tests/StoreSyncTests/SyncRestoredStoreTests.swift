import DataStores
import Foundation
@testable import StoreSync
import Testing

/// A device's store restored from a backup: a fork and a resync, never a silent gap.
@Suite struct SyncRestoredStoreTests {
    /// Copies the files of store `name` (the store and what sits beside it) to `copy`'s names.
    private static func copyStore(_ name: String, to copy: String, in directory: URL) throws {
        let manager = FileManager.default
        for file in try manager.contentsOfDirectory(atPath: directory.path()) where file.hasPrefix(copy + ".json") {
            try manager.removeItem(at: directory.appending(path: file))
        }
        for file in try manager.contentsOfDirectory(atPath: directory.path()) where file.hasPrefix(name + ".json") {
            try manager.copyItem(at: directory.appending(path: file),
                                 to: directory.appending(path: copy + ".json" + file.dropFirst(name.count + 5)))
        }
    }

    /// A device restored from a backup taken before it pushed more: its new saves reach the server
    /// and the saves it pushed after the backup come back to it. Before the fix the new saves
    /// were taken for applied and the pushed ones skipped as its own, forever.
    @Test func aDeviceRestoredFromABackupForksAndLosesNothing() async throws {
        let world = try SyncWorld(.json)
        let b = try world.replica("b")
        do {
            let a = try world.replica("a")
            try a.edit { $0.insert(SyncNote(title: "n1")) }
            try await a.sync()
        }
        try Self.copyStore("a", to: "a-backup", in: world.directory)
        do {
            let a = try world.replica("a")
            for index in 2...5 { try a.edit { $0.insert(SyncNote(title: "n\(index)")) } }
            try await a.sync()
        }
        try Self.copyStore("a-backup", to: "a", in: world.directory)
        let a = try world.replica("a")
        try a.edit { $0.insert(SyncNote(title: "after restore")) }
        try a.edit { $0.insert(SyncNote(title: "after restore 2")) }
        let report = try await a.sync()
        #expect(report.resynced)
        try await b.sync()
        try await a.sync()
        let all = ["after restore", "after restore 2", "n1", "n2", "n3", "n4", "n5"]
        #expect(try a.notes().map(\.title) == all)
        #expect(try b.notes().map(\.title) == all)
    }
}
