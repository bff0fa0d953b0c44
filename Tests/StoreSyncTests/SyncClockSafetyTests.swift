import DataStores
import Foundation
import MemoryStore
@testable import StoreSync
import Testing

/// Clock readings come from other devices and from stored rows: none may make a replica trap, and
/// one too far ahead is refused before anything of its transaction is applied.
@Suite struct SyncClockSafetyTests {
    private func historyCount(_ container: ModelContainer) throws -> Int {
        try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
    }

    /// Every reading of a clock record set to `reading`.
    private func poisoned(_ clocks: ModelClocks, _ reading: HybridLogicalTimestamp) -> ModelClocks {
        var clocks = clocks
        if clocks.incarnation != nil { clocks.incarnation = reading }
        for name in clocks.values.keys { clocks.values[name]?.clock = reading }
        return clocks
    }

    /// Before: a remote record at (Int64.max, Int64.max) trapped every replica that pulled it
    /// (arithmetic overflow in the clock). Y30 (no check on received readings) fails it.
    @Test func aPoisonReadingOnTheRemoteIsRefusedAndNothingIsApplied() async throws {
        let world = try SyncWorld(.memory)
        let (a, b) = try world.pair()
        let id = try await world.sharedNote(a, b)
        let poison = HybridLogicalTimestamp(milliseconds: .max, counter: .max, replica: "damaged")
        // A damaged writer on the server: the record far in the future, and a change to pull.
        let server = Replica(container: world.server, replicator: a.replicator)
        try server.edit { context in
            for record in try context.fetch(FetchDescriptor<SyncClockRecord>()) {
                record.clocks = try poisoned(ModelClocks.decoded(record.clocks), poison).encoded()
            }
            for note in try context.fetch(FetchDescriptor<SyncNote>()) { note.title = "poison" }
        }
        let before = try historyCount(b.container)
        let error = try await #require(throws: SyncError.self) { try await b.sync() }
        #expect(error.code == .clockOutOfRange)
        #expect(error.message.contains("SyncNote"))
        #expect(error.message.contains("\(poison)"))
        #expect(try b.note(id)?.title == "t")
        // The stamp save of the round may be written; no pulled data is.
        let after = try b.container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).dropFirst(before)
        #expect(after.allSatisfy { $0.author == "StoreSync/stamp" })
        // And the replica keeps working for its own edits: it does not trap.
        try b.change(id) { $0.body = "B edit" }
        await #expect(throws: SyncError.self) { try await b.sync() }
    }

    /// Before: a local SyncReplicaState with its clock near Int64.max trapped in tick().
    @Test func aDamagedLocalClockIsCorruptSyncState() async throws {
        let world = try SyncWorld(.memory)
        let a = try world.replica("a")
        let id = try a.insert { SyncNote(title: "n") }
        try await a.sync()
        try a.edit { context in
            for state in try context.fetch(FetchDescriptor<SyncReplicaState>()) {
                state.clockMilliseconds = .max - 5
                state.clockCounter = .max
            }
        }
        try a.change(id) { $0.title = "edited" }
        let serverBefore = try historyCount(world.server)
        await #expect(throws: SyncError(.corruptSyncState, "")) { try await a.sync() }
        #expect(try historyCount(world.server) == serverBefore)
    }

    /// Before: an empty replica ID went unnoticed (its own pushes were pulled back as news).
    @Test func anEmptyReplicaIDIsCorruptSyncState() async throws {
        let world = try SyncWorld(.memory)
        let a = try world.replica("a")
        _ = try a.insert { SyncNote(title: "n") }
        try await a.sync()
        try a.edit { context in
            for state in try context.fetch(FetchDescriptor<SyncReplicaState>()) { state.replicaID = "" }
        }
        _ = try a.insert { SyncNote(title: "m") }
        let serverBefore = try historyCount(world.server)
        await #expect(throws: SyncError(.corruptSyncState, "")) { try await a.sync() }
        #expect(try historyCount(world.server) == serverBefore)
    }

    /// At the counter's maximum the clock moves to the next millisecond; nothing traps, and each
    /// reading is later than the one before. Y31 (counter incremented unchecked) traps here.
    @Test func aCounterAtItsMaximumMovesToTheNextMillisecond() throws {
        var clock = try HybridLogicalClock(replica: "r", milliseconds: 1_000, counter: .max - 1, wallClock: { 1_000 })
        let first = clock.tick()
        let second = clock.tick()
        #expect(first == HybridLogicalTimestamp(milliseconds: 1_000, counter: .max, replica: "r"))
        #expect(second == HybridLogicalTimestamp(milliseconds: 1_001, counter: 0, replica: "r"))
        #expect(first < second)
        let top = HybridLogicalTimestamp(milliseconds: .max, counter: .max, replica: "x")
        #expect(top.next(by: "y") == HybridLogicalTimestamp(milliseconds: .max, counter: .max, replica: "y"))
        var record = ModelClocks(incarnation: top)
        record.mergedInto = nil
        #expect(ModelDating.after(record, floor: HybridLogicalTimestamp(milliseconds: 0, counter: 0, replica: "s")).replica == "s")
    }

    /// The limit: one day ahead of the wall clock is taken in, a millisecond more is refused;
    /// a negative reading is refused; a saved clock past the limit is corruptSyncState.
    @Test func theSkewLimitIsOneDay() throws {
        let now: Int64 = 5_000_000
        let model = PersistentIdentifier(entityName: "SyncNote", primaryKey: .string("k"))
        func clocks(_ milliseconds: Int64, _ counter: Int64 = 0) -> ModelClocks {
            ModelClocks(incarnation: HybridLogicalTimestamp(milliseconds: milliseconds, counter: counter, replica: "o"))
        }
        var clock = try HybridLogicalClock(replica: "r", milliseconds: 0, counter: 0, wallClock: { now })
        try clock.receive(clocks(now + HybridLogicalClock.maximumSkew), of: model)
        #expect(clock.tick() > HybridLogicalTimestamp(milliseconds: now + HybridLogicalClock.maximumSkew, counter: 0, replica: "o"))
        #expect(throws: SyncError(.clockOutOfRange, "")) { try clock.receive(clocks(now + HybridLogicalClock.maximumSkew + 1), of: model) }
        #expect(throws: SyncError(.clockOutOfRange, "")) { try clock.receive(clocks(1, -1), of: model) }
        #expect(throws: SyncError(.corruptSyncState, "")) {
            _ = try HybridLogicalClock(replica: "r", milliseconds: now + HybridLogicalClock.maximumSkew + 1, counter: 0, wallClock: { now })
        }
    }
}
