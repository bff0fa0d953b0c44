import DataStores
import Foundation
import PostgresStore
import StoreSync
import Testing

/// `Replicator.run()` with a PostgresStore remote: a save that another process pushes to the
/// server reaches the local store through the remote's LISTEN/NOTIFY, and a local save reaches
/// the server through the local save notification; no polling interval is involved (the time
/// limits only bound a failure).
@Suite("Sync's long-running mode with PostgreSQL", .enabled(if: TestServer.isConfigured))
struct SyncRunModeTests {
    @Test("A save pushed by another process arrives; a local save is pushed", .timeLimit(.minutes(2)))
    func runWakesOnSaves() async throws {
        let url = try #require(TestServer.url)
        let fixture = try SyncFixture()
        let local = try fixture.local("a")
        let remote = try fixture.remote()
        let replicator = try Replicator(local: local, remote: try fixture.remote())
        var rounds = replicator.run().makeAsyncIterator()
        _ = try await rounds.next()   // the first round, before anything was saved

        // Another process inserts w5-0 into its own replica and pushes it.
        let helper = try HelperProcess(["sync-insert", url, fixture.remoteConfiguration.namespace, fixture.localPath("helper"), "5", "0"])
        #expect(helper.nextLine() == "pushed 1")
        #expect(helper.wait() == 0)
        let pushed = ContinuousClock.now
        while try SyncFixture.rows(local)["w5-0"] == nil {
            _ = try #require(try await rounds.next(), "the run ended before the other process's save arrived")
        }
        print("run mode: the other process's save arrived \(ContinuousClock.now - pushed) after its push")

        // A local save: the run pushes it; the server's history updates (NOTIFY) show its arrival.
        let after = try remote.currentHistoryToken()
        var serverUpdates = remote.historyUpdates(after: after, pollInterval: .seconds(3_600), maximumPollInterval: .seconds(3_600)).makeAsyncIterator()
        try SyncFixture.edit(local) { $0.insert(HelperEntry(writer: 6, sequence: 0)) }
        let saved = ContinuousClock.now
        var arrived = false
        while !arrived {
            let transaction = try #require(try await serverUpdates.next())
            arrived = try transaction.author?.hasPrefix("StoreSync/") == true && SyncFixture.rows(remote)["w6-0"] != nil
        }
        print("run mode: the local save reached the server \(ContinuousClock.now - saved) after it was saved")
        #expect(try SyncFixture.rows(remote) == SyncFixture.rows(local))
    }
}
