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
        var lastClockRead = wallMilliseconds()
        func inALaterMillisecond(_ body: () throws -> Void) rethrows {
            waitForALaterMillisecond(than: lastClockRead)
            try body()
            lastClockRead = wallMilliseconds()
        }
        try inALaterMillisecond { try a.change(id) { $0.title = "same" } }
        try await a.sync()
        try inALaterMillisecond { try a.change(id) { $0.title = "A's" } }
        try inALaterMillisecond { try b.change(id) { $0.title = "same" } }
        try await b.sync()
        try await a.sync()
        try await b.sync()
        #expect(try a.note(id)?.title == "same")
        #expect(try b.note(id)?.title == "same")
        #expect(try ModelContext(world.server).fetch(FetchDescriptor<SyncNote>()).map(\.title) == ["same"])
    }
}
