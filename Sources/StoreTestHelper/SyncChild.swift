import Foundation
import JSONStore
import StoreProtocol
import StoreSync
import StoreTestSupport

/// The sync harness's schema: the test models and the replicator's.
func syncSchema() -> Schema { Schema(syncTestModelTypes + Replicator.models) }

/// A JSON store of the sync harness's schema, behind `sabotage` when given.
func openSyncStore(_ path: String, sabotage: SyncSabotage? = nil) throws -> ModelContainer {
    let configuration = JSONStoreConfiguration(url: URL(filePath: path))
    guard let sabotage else { return try ModelContainer(for: syncSchema(), configurations: configuration) }
    return try ModelContainer(for: syncSchema(), configurations: SabotagedStoreConfiguration(configuration, sabotage: sabotage))
}

/// The process the sync fault harness kills: `SAVES` saves of seeded random edits of the models
/// owner "A" made in the local store, each acknowledged ("ack N DIGEST", DIGEST the owner's rows
/// after it), then one round of sync with the remote, announcing each phase as the round enters
/// it ("phase NAME"), then "synced pushed P pulled Q". With a sabotage, the remote is opened
/// behind it (the harness's negative control). Every line is written unbuffered: once written,
/// the parent may act on it.
func syncChild(local: String, remote: String, seed: UInt64, saves: Int, sabotage: SyncSabotage?) async throws {
    @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    let localContainer = try openSyncStore(local)
    var generator = SeededGenerator(seed: seed)
    let editor = SyncEditor(owner: "A", ownedOnly: true, labels: false)
    for save in 0..<saves {
        let context = ModelContext(localContainer)
        context.author = "app"
        var touched = Set<UUID>()
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            _ = try editor.edit(context, touched: &touched, using: &generator)
        }
        try context.save()
        say("ack \(save) \(try SyncRows(localContainer).owned(by: "A").digest)")
    }
    let replicator = try Replicator(local: localContainer, remote: try openSyncStore(remote, sabotage: sabotage),
                                    configuration: SyncConfiguration(phaseHandler: { say("phase \($0.rawValue)") }))
    let report = try await replicator.sync()
    say("synced pushed \(report.pushedTransactions) pulled \(report.pulledTransactions)")
}
