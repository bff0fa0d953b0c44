import DataStores
import Foundation
@testable import StoreSync
import Testing

/// Two models inserted on different replicas with the same unique values merge into one: the
/// smaller primary key survives everywhere, the values merge by clock.
@Suite struct SyncUniqueKeyTests {
    private func accounts(_ container: ModelContainer) throws -> [SyncAccount] {
        try ModelContext(container).fetch(FetchDescriptor<SyncAccount>())
    }

    /// Sabotage checked: keeping the incoming model whatever its key (`incomingSurvives = true`)
    /// leaves the replicas with different survivors.
    @Test(arguments: SyncBackend.allCases, [true, false])
    func concurrentInsertsOfOneUniqueKeyMergeIntoTheSmallerIdentifier(_ backend: SyncBackend, aPushesFirst: Bool) async throws {
        let world = try SyncWorld(backend)
        let clock = ManualClock(), recorder = SyncRecorder()
        let a = try world.replica("a", configuration: clock.driving(recorder.configuration()))
        let b = try world.replica("b", configuration: clock.driving(recorder.configuration()))
        let c = try world.replica("c", configuration: clock.driving(recorder.configuration()))
        let idA = try a.edit { context in
            let account = SyncAccount(email: "ada@example.com", displayName: "from a", credits: 5)
            context.insert(account)
            return account.persistentModelID
        }
        try await a.replicator.pull()   // dated now
        clock.advance()
        let idB = try b.edit { context in
            let account = SyncAccount(email: "ada@example.com", displayName: "from b", credits: 0)
            context.insert(account)
            return account.persistentModelID
        }
        try await b.replicator.pull()
        clock.advance()
        // a changes its credits after b inserted, without having seen b's account.
        try a.edit { context in (try context.model(for: idA) as? SyncAccount)?.credits = 7 }
        try await a.replicator.pull()
        clock.advance()
        let (first, second) = aPushesFirst ? (a, b) : (b, a)
        try await first.sync()
        try await c.sync()   // c holds the first pusher's account before the merge
        try await second.sync()
        try await first.sync()
        try await c.sync()
        try await second.sync()

        let survivor = MergeSession.sortKey(idA) < MergeSession.sortKey(idB) ? idA : idB
        for container in [a.container, b.container, c.container, world.server] {
            let held = try accounts(container)
            #expect(held.count == 1)
            #expect(held.first?.persistentModelID == survivor)
            #expect(held.first?.displayName == "from b")
            #expect(held.first?.credits == 7)
        }
        #expect(recorder.resolutions.contains { $0.conflict.kind == .uniqueKey(["email"]) })
    }

    /// A replica that edits the model that lost the merge, offline: its change reaches the
    /// survivor on every replica, whether it learns of the merge before it pushes (its pull merges
    /// the edit into the survivor, its push sends the survivor) or after (the remote redirects the
    /// pushed change). Sabotage checked: without the redirect of a merged-away model's changes, or
    /// without sending the survivor after a merged-away model, c's edit is lost.
    @Test(arguments: SyncBackend.allCases, [true, false])
    func changesOfTheLoserGoToTheSurvivor(_ backend: SyncBackend, cPullsFirst: Bool) async throws {
        let world = try SyncWorld(backend)
        let clock = ManualClock()
        let a = try world.replica("a", configuration: clock.driving()), b = try world.replica("b", configuration: clock.driving())
        let c = try world.replica("c", configuration: clock.driving())
        let idA = try a.edit { context in
            let account = SyncAccount(email: "x@example.com", displayName: "a")
            context.insert(account)
            return account.persistentModelID
        }
        let idB = try b.edit { context in
            let account = SyncAccount(email: "x@example.com", displayName: "b")
            context.insert(account)
            return account.persistentModelID
        }
        let loser = MergeSession.sortKey(idA) < MergeSession.sortKey(idB) ? idB : idA
        let (loserReplica, winnerReplica) = loser == idA ? (a, b) : (b, a)
        try await loserReplica.sync()
        try await c.sync()   // c holds the loser
        try await winnerReplica.sync()
        clock.advance()
        try c.edit { context in (try context.model(for: loser) as? SyncAccount)?.credits = 42 }
        if !cPullsFirst { try await c.replicator.push() }
        try await c.sync()
        try await a.sync()
        try await b.sync()
        try await c.sync()
        for container in [a.container, b.container, c.container, world.server] {
            let held = try accounts(container)
            #expect(held.count == 1)
            #expect(held.first?.persistentModelID != loser)
            #expect(held.first?.credits == 42)
        }
    }
}
