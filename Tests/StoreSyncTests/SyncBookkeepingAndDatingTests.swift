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
    /// replica. Not yet: A's edit is dated by A's round and overwrites B's (the article's limit;
    /// dating by the save's history timestamp disagreed with the convergence model and the
    /// relationship scenarios, and was taken out until they are brought in line).
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
        withKnownIssue("an offline edit is dated by its device's next round, not by its save") {
            #expect(titles.0 == "B late")
            #expect(titles.1 == "B late")
        }
    }
}
