import DataStores
import Foundation
@testable import StoreSync
import Testing

/// What a round reports: counts that match their documentation, conflicts that show both sides.
@Suite struct SyncReportDetailsTests {
    /// The documented count (the finding: the doc said "changes those transactions held", 5 here):
    /// what changed on the destination, each model once per save; n's second and third saves
    /// travelled with its first.
    @Test func appliedChangesCountsWhatChangedOnTheDestination() async throws {
        let world = try SyncWorld(.memory)
        let a = try world.replica("a")
        let n = try a.insert { SyncNote(title: "n") }
        try a.change(n) { $0.title = "n2" }
        try a.change(n) { $0.title = "n3" }
        try a.edit { context in
            context.insert(SyncNote(title: "m"))
            context.insert(SyncNote(title: "t"))
        }
        let report = try await a.sync()
        #expect(report.pushedTransactions == 4)
        #expect(report.appliedChanges == 3)
    }

    /// Before: heldValue and incomingValue were both nil when the held side is the update, so a
    /// resolver comparing values could not see it.
    @Test func aDeleteVersusUpdateConflictShowsTheUpdatedValues() async throws {
        let world = try SyncWorld(.memory)
        let recorder = SyncRecorder(), clock = ManualClock()
        // A clock the test moves: the update is dated after the deletion, never in its millisecond.
        let a = try world.replica("a", configuration: clock.driving())
        let b = try world.replica("b", configuration: clock.driving(recorder.configuration()))
        let id = try await world.sharedNote(a, b)
        try a.delete(id)
        try b.change(id) { $0.title = "updated" }
        try await a.sync()
        clock.advance()
        try await b.sync()
        let conflict = try #require(recorder.resolutions.first { $0.conflict.kind == .deleteVersusUpdate }?.conflict)
        #expect(!conflict.heldIsDeletion)
        #expect(conflict.incomingValue == nil)
        guard case .object(let held)? = conflict.heldValue else { Issue.record("no held values"); return }
        #expect(held["title"] == .string("updated"))
    }
}
