import DataStores
import Foundation
@testable import StoreSync
import Testing

/// Idle rounds write nothing, and a change is dated by when the app saved it.
@Suite struct SyncBookkeepingAndDatingTests {
    /// A batch smaller than the bookkeeping backlog: once caught up, ten idle rounds of both
    /// replicas add no transaction to either side. Before the fix each position save was a
    /// transaction the other side's next round had to pass with a save of its own, forever.
    @Test(arguments: [1, 2])
    func idleRoundsWithASmallBatchWriteNothing(_ batchSize: Int) async throws {
        let world = try SyncWorld(.memory)
        let a = try world.replica("a", configuration: SyncConfiguration(batchSize: batchSize))
        let b = try world.replica("b", configuration: SyncConfiguration(batchSize: batchSize))
        try b.edit { $0.insert(SyncNote(title: "y")) }
        try await b.sync()
        for index in 0..<6 { try a.edit { $0.insert(SyncNote(title: "x\(index)")) } }
        for _ in 0..<2 {
            try await a.sync()
            try await b.sync()
        }
        func tokens() throws -> [Int64] {
            [try a.replicator.localStore.currentTransaction(), try b.replicator.localStore.currentTransaction(),
             try a.replicator.remoteStore.currentTransaction()]
        }
        let caughtUp = try tokens()
        for _ in 0..<10 {
            try await a.sync()
            try await b.sync()
        }
        #expect(try tokens() == caughtUp)
        #expect(try b.notes().count == 7)
    }

    /// A edits offline first; B edits the same attribute later and syncs; A syncs a minute later
    /// (its round's clock reads a minute ahead). B's value is the later write and wins on every
    /// replica. Before the fix A's edit was dated by A's round and overwrote B's.
    @Test(arguments: SyncBackend.allCases)
    func anOfflineEditIsDatedByItsSaveNotByTheRound(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let minuteAhead = SyncConfiguration(), late: @Sendable () -> Int64 = {
            Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) + 60_000
        }
        var aConfiguration = minuteAhead
        aConfiguration.wallClock = late
        let a = try world.replica("a", configuration: aConfiguration), b = try world.replica("b")
        let id = try b.insert { SyncNote(title: "t") }
        try await b.sync()
        try await a.sync()
        try a.change(id) { $0.title = "A early" }
        let saved = try #require(try a.replicator.localStore.transactions(after: 0, limit: 1000).last).timestamp
        // B's save falls in a later millisecond than A's (a premise, not a synchronisation).
        while Date().timeIntervalSince1970 * 1000 < (saved.timeIntervalSince1970 * 1000).rounded(.down) + 1 {}
        try b.change(id) { $0.title = "B late" }
        try await b.sync()
        try await a.sync()
        try await b.sync()
        let titles = (try a.note(id)?.title, try b.note(id)?.title)
        #expect(titles.0 == "B late")
        #expect(titles.1 == "B late")
    }

    /// The same value written again later elsewhere moves only its clock: A writes "same" and
    /// syncs, then writes "A's" (offline); B, not having seen either, writes "same" later than
    /// both and syncs, which changes nothing on the remote but the title's clock. A's round must
    /// learn that clock, so that B's later write wins on A too. Before the fix a pull passed over
    /// a remote save that changed a clock record alone: A kept "A's" while the remote and B held
    /// "same", for good.
    @Test(arguments: SyncBackend.allCases)
    func aValueWrittenAgainLaterElsewhereWinsOnEveryReplica(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        let id = try await world.sharedNote(a, b)
        let inOrder = SavesInOrder()
        try inOrder.run { try a.change(id) { $0.title = "same" } }
        try await a.sync()
        try inOrder.run { try a.change(id) { $0.title = "A's" } }
        try inOrder.run { try b.change(id) { $0.title = "same" } }
        try await b.sync()
        try await a.sync()
        try await b.sync()
        #expect(try a.note(id)?.title == "same")
        #expect(try b.note(id)?.title == "same")
        #expect(try ModelContext(world.server).fetch(FetchDescriptor<SyncNote>()).map(\.title) == ["same"])
    }

    /// Found by an adversary: A changes a title offline and changes it back; B changes it in
    /// between and syncs first. A's change back is the latest save of the title and wins on every
    /// replica. Before the fix a round compared the row with its record's digest only, so a value
    /// back where the record had it kept its old clock, and B's earlier write won.
    @Test(arguments: SyncBackend.allCases)
    func aValueChangedAndChangedBackIsDatedByItsLastSave(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        let id = try await world.sharedNote(a, b)
        let inOrder = SavesInOrder()
        try inOrder.run { try a.change(id) { $0.title = "A's" } }
        try inOrder.run { try b.change(id) { $0.title = "B's" } }
        try await b.sync()
        try inOrder.run { try a.change(id) { $0.title = "t" } }
        try await a.sync()
        try await b.sync()
        #expect(try a.note(id)?.title == "t")
        #expect(try b.note(id)?.title == "t")
        #expect(try ModelContext(world.server).fetch(FetchDescriptor<SyncNote>()).map(\.title) == ["t"])
    }

    /// The same for a model's life: A deletes a badge offline and inserts it again with the same
    /// values; B's update made in between is older than the new life, which starts with A's
    /// values. Before the fix the row matched its record and A's new life was not dated.
    @Test(arguments: SyncBackend.allCases)
    func aReinsertWithTheSameValuesIsANewLife(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        let key = UUID()
        let id = try a.insert { SyncBadge(id: key, caption: "t") }
        try await a.sync()
        try await b.sync()
        let inOrder = SavesInOrder()
        func captions(_ container: ModelContainer) throws -> [String] {
            try ModelContext(container).fetch(FetchDescriptor<SyncBadge>()).map(\.caption)
        }
        try inOrder.run { try a.delete(id) }
        try inOrder.run {
            try b.edit { context in (try context.model(for: id) as? SyncBadge)?.caption = "B's" }
        }
        try await b.sync()
        try inOrder.run { _ = try a.insert { SyncBadge(id: key, caption: "t") } }
        try await a.sync()
        try await b.sync()
        #expect(try captions(a.container) == ["t"])
        #expect(try captions(b.container) == ["t"])
        #expect(try captions(world.server) == ["t"])
    }

    /// Found by an adversary: an app context authored "StoreSync" (or any author beginning so)
    /// saved notes that never synced. Only `StoreSync/…` is the replicator's (documented); an
    /// author that merely begins with the word is an app's.
    @Test(arguments: SyncBackend.allCases)
    func onlyAuthorsUnderStoreSyncSlashAreTheReplicators(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        for author in ["StoreSync", "StoreSyncWidget", "widget"] {
            let context = ModelContext(a.container)
            context.author = author
            context.insert(SyncNote(title: author))
            try context.save()
        }
        try await a.sync()
        try await b.sync()
        #expect(try b.notes().map(\.title) == ["StoreSync", "StoreSyncWidget", "widget"])
    }
}

/// Runs each body in a later millisecond than the clock read after the one before, so that saves
/// made one after the other are dated in that order (changes are dated by their save).
final class SavesInOrder {
    private var lastClockRead = wallMilliseconds()

    func run(_ body: () throws -> Void) rethrows {
        waitForALaterMillisecond(than: lastClockRead)
        try body()
        lastClockRead = wallMilliseconds()
    }
}
