import DataStores
import Foundation
import JSONStore
import StoreSync
import StoreTestSupport
import Testing

/// The samples of the StoreSync article "Syncing with a server", as written there.
@Suite struct SyncArticleSampleTests {
    @Test func theArticlesSampleSyncsANote() async throws {
        let directory = try temporaryDirectory()
        let localURL = directory.appending(path: "local.json"), serverURL = directory.appending(path: "server.json")
        let schema = Schema([SyncNote.self, SyncFolder.self] + Replicator.models)
        let local = try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(url: localURL, schema: schema)])
        let server = try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(url: serverURL, schema: schema)])
        let replicator = try Replicator(local: local, remote: server, configuration: SyncConfiguration(
            resolutionHandler: { resolution in print("resolved \(resolution.conflict.kind) of \(resolution.conflict.identifier)") }))

        let context = ModelContext(local)
        context.insert(SyncNote(title: "Buy milk"))
        try context.save()
        let report = try await replicator.sync()
        print("pushed \(report.pushedTransactions), pulled \(report.pulledTransactions)")

        #expect(report.pushedTransactions == 1)
        #expect(try ModelContext(server).fetch(FetchDescriptor<SyncNote>()).map(\.title) == ["Buy milk"])

        let syncing = Task {
            for try await report in replicator.run() where report.resolutions > 0 {
                print("\(report.resolutions) conflicts resolved")
            }
        }
        syncing.cancel()
        _ = await syncing.result
    }
}
