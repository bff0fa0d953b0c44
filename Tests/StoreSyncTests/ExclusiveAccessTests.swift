import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreSync
import StoreTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The exclusive access a remote gives a pushing replica.
@Suite struct ExclusiveAccessTests {
    /// While one JSON store instance holds the access, the lock file beside the store is locked
    /// for every other opener (another process, another instance), and free again afterwards.
    /// Sabotage checked: a body run without the lock leaves the file lockable inside it.
    @Test func aJSONStoreHoldsAFileLockOthersWaitFor() throws {
        let url = try temporaryDirectory().appending(path: "remote.json")
        let container = try ModelContainer(for: SyncWorld.schema, configurations: [JSONStoreConfiguration(url: url, schema: SyncWorld.schema)])
        let store = try #require(container.stores.first as? JSONStore)
        func lockableByAnother() throws -> Bool {
            let fd = open(url.path + ".access-lock", O_RDWR)
            guard fd >= 0 else { return true }   // no lock file: nobody holds it
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
            flock(fd, LOCK_UN)
            return true
        }
        let inside = try store.withExclusiveAccess {
            // A save inside the access works: the access is not the lock saves take.
            let context = ModelContext(container)
            context.insert(SyncNote(title: "saved inside"))
            try context.save()
            return try lockableByAnother()
        }
        #expect(!inside)
        #expect(try lockableByAnother())
    }

    @Test func aMemoryStoreRunsTheBodyAndCanSaveInIt() throws {
        let container = try ModelContainer(for: SyncWorld.schema, configurations: [MemoryStoreConfiguration(name: UUID().uuidString, schema: SyncWorld.schema)])
        let store = try #require(container.stores.first as? MemoryStore)
        let count = try store.withExclusiveAccess {
            let context = ModelContext(container)
            context.insert(SyncNote(title: "saved inside"))
            try context.save()
            return try context.fetchCount(FetchDescriptor<SyncNote>())
        }
        #expect(count == 1)
    }
}
