import DataStores
import Foundation

extension SyncRound {
    /// Notices a local store that is not the one the remote knows under this replica ID: the
    /// remote applied more of this replica's transactions than the local history holds (the store
    /// was restored from a backup, or copied from a store that pushed more). Its saves since would
    /// reuse numbers the remote takes for applied, and its pull would skip the restored-away
    /// transactions as its own pushes: so it forks, taking a new replica ID (saved before anything
    /// else), and its history is pushed again from the start under it; the pull then brings back
    /// what the old ID had pushed. ``SyncReport/resynced`` says so.
    mutating func checkLineage() throws {
        guard var state, let clock else { return }
        let pushed = try SyncStateRows.appliedOrigin(state.replicaID, in: remote)
        guard pushed > (try local.currentTransaction()) else { return }
        state.replicaID = UUID().uuidString
        self.state = state
        self.clock = try HybridLogicalClock(replica: state.replicaID, milliseconds: clock.milliseconds, counter: clock.counter,
                                        wallClock: clock.wallClock)
        var save = SyncSave()
        if let current = currentState() { SyncStateRows.write(current, into: &save) }
        try local.save(save, author: Self.authorPrefix + "/fork")
        report.resynced = true
    }
}
