import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// A model with unsaved changes keeps its values through a fetch, its relationships too. When
/// another context has moved one of its members elsewhere and saved, the member (fetched again)
/// names its new owner: deleting the stale owner must not cascade over it, nor be denied by it.
/// Found by an adversary: the cascade deleted the moved item from the store, losing the other
/// context's saved move.
@Suite struct StaleOwnerDeleteRuleTests {
    @Model final class Trip {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Item.trip) var items: [Item] = []
        init(name: String) { self.name = name }
    }

    @Model final class Item {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }

    @Model final class Guarded {
        var name: String
        @Relationship(deleteRule: .deny, inverse: \Thing.owner) var things: [Thing] = []
        init(name: String) { self.name = name }
    }

    @Model final class Thing {
        var title: String
        var owner: Guarded?
        init(title: String) { self.title = title }
    }

    enum Kind: CaseIterable { case memory, json }

    static func container(_ kind: Kind, _ types: any PersistentModel.Type...) throws -> ModelContainer {
        switch kind {
        case .memory:
            return try ModelContainer(for: Schema(types), configurations: MemoryStoreConfiguration())
        case .json:
            let url = try temporaryDirectory().appending(path: "store.json")
            return try ModelContainer(for: Schema(types), configurations: JSONStoreConfiguration(url: url))
        }
    }

    @Test(arguments: Kind.allCases, [false, true])
    func deletingAStaleOwnerDoesNotCascadeOverAMemberMovedElsewhere(kind: Kind, unsavedEdit: Bool) throws {
        let container = try Self.container(kind, Trip.self, Item.self)
        let setup = ModelContext(container)
        let iceland = Trip(name: "Iceland"), norway = Trip(name: "Norway")
        let item = Item(title: "i1"), own = Item(title: "i2")
        setup.insert(iceland); setup.insert(norway)
        iceland.items = [item, own]
        try setup.save()

        let b = ModelContext(container)
        let trips = try b.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        let (bIceland, bNorway) = (trips[0], trips[1])

        let a = ModelContext(container)
        let aItem = try #require(try a.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.title == "i1" })).first)
        let aNorway = try #require(try a.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Norway" })).first)
        aItem.trip = aNorway
        try a.save()

        if unsavedEdit { bIceland.name = "Iceland!" }
        _ = try b.fetch(FetchDescriptor<Trip>())
        _ = try b.fetch(FetchDescriptor<Item>())
        b.delete(bIceland)
        try b.save()

        let fresh = ModelContext(container)
        let items = try fresh.fetch(FetchDescriptor<Item>()).map(\.title)
        #expect(items == ["i1"], "i2 was Iceland's and is cascaded; i1 is Norway's and stays")
        let norwayItems = try fresh.fetch(FetchDescriptor<Trip>()).map { "\($0.name): \($0.items.map(\.title))" }
        #expect(norwayItems == ["Norway: [\"i1\"]"])
        #expect(bNorway.items.map(\.title) == ["i1"])
    }

    @Test(arguments: Kind.allCases)
    func aMemberMovedElsewhereDoesNotDenyDeletingItsStaleOwner(kind: Kind) throws {
        let container = try Self.container(kind, Guarded.self, Thing.self)
        let setup = ModelContext(container)
        let first = Guarded(name: "first"), second = Guarded(name: "second")
        setup.insert(first); setup.insert(second)
        first.things = [Thing(title: "t")]
        try setup.save()

        let b = ModelContext(container)
        let bFirst = try #require(try b.fetch(FetchDescriptor<Guarded>(predicate: #Predicate { $0.name == "first" })).first)

        let a = ModelContext(container)
        let aThing = try #require(try a.fetch(FetchDescriptor<Thing>()).first)
        let aSecond = try #require(try a.fetch(FetchDescriptor<Guarded>(predicate: #Predicate { $0.name == "second" })).first)
        aThing.owner = aSecond
        try a.save()

        bFirst.name = "first!"
        _ = try b.fetch(FetchDescriptor<Thing>())
        b.delete(bFirst)
        try b.save()   // threw deleteDenied: the stale list still held the thing

        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Guarded>()).map(\.name) == ["second"])
        #expect(try fresh.fetch(FetchDescriptor<Thing>()).map { $0.owner?.name } == ["second"])

        // The control: a member that is the owner's own still denies.
        let c = ModelContext(container)
        let cSecond = try #require(try c.fetch(FetchDescriptor<Guarded>()).first)
        c.delete(cSecond)
        #expect(throws: ModelContextError.self) { try c.save() }
    }
}
