import DataStores
import Foundation
@testable import StoreSync
import Testing

/// A position whose history was deleted on its side: a full resync, never a gap.
@Suite struct SyncResyncTests {
    /// The server keeps two transactions of history; b was away for more. Sabotage checked:
    /// treating the expired error as "nothing to pull" leaves b without a's notes.
    @Test(arguments: SyncBackend.allCases)
    func anExpiredPullPositionResyncsEverything(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend, serverRetention: .transactions(2))
        let a = try world.replica("a"), b = try world.replica("b")
        try a.edit { $0.insert(SyncNote(title: "before", rank: 1)) }
        try await a.sync()
        try await b.sync()
        let gone = try a.edit { context in
            let notes = try context.fetch(FetchDescriptor<SyncNote>())
            for note in notes { context.delete(note) }
            return notes.map(\.persistentModelID)
        }
        for index in 0..<5 {
            try a.edit { $0.insert(SyncNote(title: "note \(index)")) }
            try await a.sync()
        }
        // b's own unpushed insert survives the resync and is pushed.
        try b.edit { $0.insert(SyncNote(title: "b's own")) }
        let report = try await b.sync()
        #expect(report.resynced)
        #expect(try b.notes().map(\.title) == ["b's own", "note 0", "note 1", "note 2", "note 3", "note 4"])
        for id in gone { #expect(try b.note(id) == nil) }
        try await a.sync()
        #expect(try a.notes().map(\.title) == ["b's own", "note 0", "note 1", "note 2", "note 3", "note 4"])
        // After the resync, b follows history again.
        try a.edit { $0.insert(SyncNote(title: "note 5")) }
        try await a.sync()
        let next = try await b.sync()
        #expect(!next.resynced)
        #expect(try b.notes().count == 7)
    }

    /// The local store keeps one transaction of history: its own saves since the last round are
    /// found by comparing every row with its clocks, and pushed. Sabotage checked: a stamp that
    /// skips the comparison on an expired position leaves the notes undated and unpushed.
    @Test(arguments: SyncBackend.allCases)
    func anExpiredLocalHistoryIsComparedRowByRow(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a", retention: .transactions(1)), b = try world.replica("b")
        let first = try a.edit { context in
            let note = SyncNote(title: "first")
            context.insert(note)
            return note.persistentModelID
        }
        try await a.sync()
        try await b.sync()
        #expect(try b.notes().map(\.title) == ["first"])
        for index in 0..<3 { try a.edit { $0.insert(SyncNote(title: "later \(index)")) } }
        try a.edit { context in (try context.model(for: first) as? SyncNote)?.body = "edited offline" }
        let report = try await a.sync()
        #expect(report.resynced)
        try await b.sync()
        #expect(try b.notes().map(\.title) == ["first", "later 0", "later 1", "later 2"])
        #expect(try b.note(first)?.body == "edited offline")
    }
}
