import DataStores
import Foundation
@testable import StoreSync
import Testing

/// One device moves a `#Unique` value from one model to another across two saves, each legal on
/// its own store. A push (or pull) sends a transaction's models as they are now, so an earlier
/// transaction can carry a value whose previous holder moves off it (or is deleted) only in a later
/// transaction: that is no collision of two replicas, and nothing merges.
@Suite struct SyncUniqueKeyMoveTests {
    private struct Person: Equatable, CustomStringConvertible {
        let id: PersistentIdentifier, email: String, name: String
        var description: String { "\(email) \(name)" }
    }

    private func people(_ container: ModelContainer) throws -> [Person] {
        try ModelContext(container).fetch(FetchDescriptor<SyncAccount>(sortBy: [SortDescriptor(\.email)]))
            .map { Person(id: $0.persistentModelID, email: $0.email, name: $0.displayName) }
    }

    private func account(_ context: ModelContext, _ id: PersistentIdentifier) throws -> SyncAccount {
        try #require(try context.model(for: id) as? SyncAccount)
    }

    private func insert(_ replica: Replica, email: String, name: String) throws -> PersistentIdentifier {
        try replica.insert { SyncAccount(email: email, displayName: name) }
    }

    private func expectEverywhere(_ world: SyncWorld, _ replicas: [Replica], _ expected: [Person]) throws {
        for container in replicas.map(\.container) + [world.server] { #expect(try people(container) == expected) }
    }

    /// Save 1 swaps through a spare value, save 2 finishes the swap. The models as they are now
    /// swap their values in the destination's save of save 1: no collision, since a store checks
    /// a save's unique values on the rows it leaves (the `storedModelsSwapUniqueValuesInOneSave`
    /// conformance case). Before, a store refused that save, so the device's pushes stayed stuck;
    /// and before that p2 was merged into p1 everywhere.
    @Test(arguments: SyncBackend.allCases)
    func aSwapAcrossTwoSavesOfOneDeviceIsNoCollision(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let clock = ManualClock(), recorder = SyncRecorder()
        let (a, b) = try world.pair(clock.driving(recorder.configuration()))
        let p1 = try insert(a, email: "x", name: "one"), p2 = try insert(a, email: "y", name: "two")
        try await a.sync()
        try await b.sync()
        clock.advance()
        try a.edit { context in
            try account(context, p1).email = "tmp"
            try account(context, p2).email = "x"
        }
        clock.advance()
        try a.edit { context in try account(context, p1).email = "y" }
        try await a.sync()
        try await b.sync()
        try await a.sync()
        try expectEverywhere(world, [a, b], [Person(id: p2, email: "x", name: "two"), Person(id: p1, email: "y", name: "one")])
        #expect(!recorder.resolutions.contains { if case .uniqueKey = $0.conflict.kind { true } else { false } })
    }

    /// Save 1 inserts a newcomer, save 2 hands it the old owner's value.
    @Test(arguments: SyncBackend.allCases)
    func aValueHandedToANewModelIsNoCollision(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let clock = ManualClock()
        let (a, b) = try world.pair(clock.driving())
        let p1 = try insert(a, email: "x", name: "old owner")
        try await a.sync()
        try await b.sync()
        clock.advance()
        let p3 = try insert(a, email: "z", name: "newcomer")
        clock.advance()
        try a.edit { context in
            try account(context, p1).email = "x-old"
            try account(context, p3).email = "x"
        }
        for _ in 0..<2 {
            try await a.sync()
            try await b.sync()
        }
        try expectEverywhere(world, [a, b], [Person(id: p3, email: "x", name: "newcomer"), Person(id: p1, email: "x-old", name: "old owner")])
    }

    /// Save 1 inserts a draft contact, save 2 deletes the old one and gives the draft its value:
    /// the deletion comes along with the value, on push and on pull.
    @Test(arguments: SyncBackend.allCases)
    func aReplacedContactIsNoCollision(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let clock = ManualClock()
        let (a, b) = try world.pair(clock.driving())
        let p1 = try insert(a, email: "x", name: "old")
        try await a.sync()
        try await b.sync()
        clock.advance()
        let p3 = try insert(a, email: "draft", name: "new")
        clock.advance()
        try a.edit { context in
            context.delete(try account(context, p1))
            try account(context, p3).email = "x"
        }
        for _ in 0..<2 {
            try await a.sync()
            try await b.sync()
        }
        try expectEverywhere(world, [a, b], [Person(id: p3, email: "x", name: "new")])
    }

    /// The colliding model's source state is brought in, but the destination holds a later value
    /// of it from another device: the two devices did put one value on two models, and they merge.
    /// Sabotage checked: taking a brought-in model for settled without checking it again leaves
    /// the server with two accounts of one email (its save refuses, or it holds both).
    @Test(arguments: SyncBackend.allCases)
    func aValueAnotherDeviceGaveLaterStillMerges(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let clock = ManualClock(), recorder = SyncRecorder()
        let (a, b) = try world.pair(clock.driving(recorder.configuration()))
        let p2 = try insert(a, email: "y", name: "two")
        try await a.sync()
        try await b.sync()
        clock.advance()
        let p3 = try insert(a, email: "w", name: "three")
        try await a.replicator.pull()   // dates the insert now
        clock.advance()
        try a.edit { context in try account(context, p3).email = "v" }
        try b.edit { context in try account(context, p2).email = "v" }
        try await b.sync()
        clock.advance()
        try await a.sync()
        try await b.sync()
        try await a.sync()
        let survivor = MergeSession.sortKey(p2) < MergeSession.sortKey(p3) ? p2 : p3
        for container in [a.container, b.container, world.server] {
            let held = try people(container)
            #expect(held.count == 1)
            #expect(held.first?.id == survivor)
            #expect(held.first?.email == "v")
        }
        #expect(recorder.resolutions.contains { $0.conflict.kind == .uniqueKey(["email"]) })
    }
}
