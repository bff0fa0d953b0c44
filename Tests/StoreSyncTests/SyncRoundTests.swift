import DataStores
import Foundation
@testable import StoreSync
import Testing

/// What a round reports: its phases as it enters them, its counts.
@Suite struct SyncRoundTests {
    @Test func phasesAreEnteredInOrderBeforeTheirWork() async throws {
        let world = try SyncWorld(.memory)
        let recorder = SyncRecorder()
        let a = try world.replica("a"), b = try world.replica("b", configuration: recorder.configuration())
        try a.edit { $0.insert(SyncNote(title: "from a")) }
        try await a.sync()
        try b.edit { $0.insert(SyncNote(title: "from b")) }
        let report = try await b.sync()
        #expect(report.pulledTransactions == 1 && report.pushedTransactions == 1)
        let phases = recorder.phases
        #expect(phases.first == .stampLocal)
        #expect(phases.filter { $0 == .pullSave }.count == 1)
        #expect(phases.filter { $0 == .pushSave }.count == 1)
        // Each save phase follows the read phase that found its work; pull comes before push.
        let pullSave = try #require(phases.firstIndex(of: .pullSave)), pushSave = try #require(phases.firstIndex(of: .pushSave))
        #expect(phases[..<pullSave].contains(.pullRead))
        #expect(phases[..<pushSave].contains(.pushRead))
        #expect(pullSave < pushSave)
        #expect(Set(phases) == Set(SyncPhase.allCases))
    }

    /// A model deleted everywhere, then inserted again with the same identifier: the insert is
    /// later than the deletion, so the model comes back (a new life, not an update the deletion
    /// wins over). Sabotage checked: without the incarnation rule, delete-wins keeps it deleted.
    @Test(arguments: SyncBackend.allCases)
    func aReinsertAfterADeletionComesBack(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        let key = UUID()
        let id = try a.edit { context in
            let badge = SyncBadge(id: key, caption: "first life")
            context.insert(badge)
            return badge.persistentModelID
        }
        func caption(_ replica: Replica) throws -> String? { (try ModelContext(replica.container).model(for: id) as? SyncBadge)?.caption }
        try await a.sync()
        try await b.sync()
        try a.edit { context in
            if let badge = try context.model(for: id) { context.delete(badge) }
        }
        try await a.sync()
        try await b.sync()
        #expect(try caption(b) == nil)
        try b.edit { $0.insert(SyncBadge(id: key, caption: "second life")) }
        try await b.sync()
        try await a.sync()
        #expect(try caption(a) == "second life")
        #expect(try caption(b) == "second life")
    }
}

/// Rounds read history in batches: every transaction arrives whatever the batch size.
@Suite struct SyncBatchTests {
    /// Sabotage checked: a pull or push loop that stops after its first batch leaves notes behind.
    @Test(arguments: SyncBackend.allCases)
    func manyTransactionsCrossInSmallBatches(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let (a, b) = try world.pair(SyncConfiguration(batchSize: 2))
        for index in 0..<7 { _ = try a.insert { SyncNote(title: "note \(index)") } }
        let pushed = try await a.sync()
        #expect(pushed.pushedTransactions == 7)
        let pulled = try await b.sync()
        // The 7 local transactions reached the server in saves of 2.
        #expect(pulled.pulledTransactions == 4)
        #expect(try b.notes().map(\.title) == (0..<7).map { "note \($0)" })
        for index in 0..<5 { _ = try b.insert { SyncNote(title: "more \(index)") } }
        try await b.sync()
        try await a.sync()
        #expect(try a.notes().count == 12)
    }
}
