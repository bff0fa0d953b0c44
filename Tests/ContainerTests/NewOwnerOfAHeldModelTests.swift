import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// A new model (never inserted) whose to-many takes a model a context holds: SwiftData inserts it
/// into that context, so the save stores it and moves the member (its inverse names the new
/// owner; the former owner no longer holds it). Before, no context saved it and the move was lost.
@Suite struct NewOwnerOfAHeldModelTests {
    /// Folder F holding item x, saved and held by the returned context.
    private func setUp(_ kind: BookkeepingStore) throws -> (open: () throws -> ModelContainer, context: ModelContext, folder: BkFolder, item: BkItem) {
        let open = try kind.opener()
        let context = ModelContext(try open())
        let folder = BkFolder(title: "F")
        let item = BkItem(label: "x")
        context.insert(folder)
        folder.items.append(item)
        try context.save()
        return (open, context, folder, item)
    }

    /// What a fresh context on the reopened container reads: "folder:[labels]" and "label->folder".
    private func stored(_ open: () throws -> ModelContainer) throws -> (folders: [String], items: [String]) {
        let fresh = ModelContext(try open())
        let folders = try fresh.fetch(FetchDescriptor<BkFolder>()).map { "\($0.title):\($0.items.map(\.label).sorted())" }.sorted()
        let items = try fresh.fetch(FetchDescriptor<BkItem>()).map { "\($0.label)->\($0.folder?.title ?? "nil")" }.sorted()
        return (folders, items)
    }

    @Test(arguments: BookkeepingStore.allCases, [false, true])
    func aNewModelWhoseToManyTakesAHeldModelIsSaved(_ kind: BookkeepingStore, assignedWhole: Bool) throws {
        let (open, context, folder, item) = try setUp(kind)
        let newFolder = BkFolder(title: "G")
        if assignedWhole { newFolder.items = [item] } else { newFolder.items.append(item) }
        #expect(context.hasChanges, "inserted at once, as SwiftData does")
        #expect(context.insertedModelsArray.contains { $0 as AnyObject === newFolder })
        try context.save()
        #expect(item.folder === newFolder, "the inverse names the new owner")
        #expect(!folder.items.contains { $0 === item }, "the former owner no longer holds it")
        #expect(!context.hasChanges)
        let (folders, items) = try stored(open)
        #expect(folders == ["F:[]", "G:[\"x\"]"])
        #expect(items == ["x->G"])
    }

    /// Appended after new members, the held one still decides; the new members are saved with it.
    @Test(arguments: BookkeepingStore.allCases)
    func aHeldModelAppendedAfterNewOnesInsertsTheOwner(_ kind: BookkeepingStore) throws {
        let (open, context, _, item) = try setUp(kind)
        let newFolder = BkFolder(title: "G")
        newFolder.items.append(BkItem(label: "a"))
        newFolder.items.append(contentsOf: [BkItem(label: "b"), item, BkItem(label: "c")])
        try context.save()
        let (folders, items) = try stored(open)
        #expect(folders == ["F:[]", "G:[\"a\", \"b\", \"c\", \"x\"]"])
        #expect(items == ["a->G", "b->G", "c->G", "x->G"])
    }

    /// Put in place before the end (`insert(_:at:)`), the held member is found too: not only the
    /// members past those looked at before are looked at then.
    @Test(arguments: BookkeepingStore.allCases, [0, 1])
    func aHeldModelInsertedBeforeTheEndInsertsTheOwner(_ kind: BookkeepingStore, position: Int) throws {
        let (open, context, _, item) = try setUp(kind)
        let newFolder = BkFolder(title: "G")
        newFolder.items.append(contentsOf: [BkItem(label: "a"), BkItem(label: "b")])
        newFolder.items.insert(item, at: position)
        #expect(context.hasChanges)
        try context.save()
        let (folders, items) = try stored(open)
        #expect(folders == ["F:[]", "G:[\"a\", \"b\", \"x\"]"])
        #expect(items == ["a->G", "b->G", "x->G"])
    }

    /// Decision: a new model taking models of two contexts (one container) goes to the context of
    /// the first (in the relationship's order); that context's save refuses the other context's
    /// model with a typed error naming it and the relationship, and saves nothing. Taken out, the
    /// save stores the owner with the first context's model.
    @Test(arguments: BookkeepingStore.allCases)
    func aNewOwnerOfModelsOfTwoContextsIsRefusedByTheFirstContextsSave(_ kind: BookkeepingStore) throws {
        let open = try kind.opener()
        let container = try open()
        let first = ModelContext(container), second = ModelContext(container)
        let folder = BkFolder(title: "F")
        first.insert(folder)
        let mine = BkItem(label: "mine"), theirs = BkItem(label: "theirs")
        folder.items.append(mine)
        try first.save()
        second.insert(theirs)
        try second.save()

        let newFolder = BkFolder(title: "G")
        newFolder.items = [mine, theirs]
        #expect(first.hasChanges)
        #expect(!second.hasChanges)
        let error = try #require(throws: ModelContextError.self) { try first.save() }
        #expect(error.code == .modelOfAnotherContext)
        #expect(error.message.contains("\(theirs.persistentModelID)"), "names the refused model: \(error.message)")
        #expect(error.message.contains("`items`"), "names the relationship: \(error.message)")
        var (folders, items) = try stored(open)
        #expect(folders == ["F:[\"mine\"]"], "nothing was saved")
        #expect(items == ["mine->F", "theirs->nil"])

        newFolder.items.removeAll { $0 === theirs }
        try first.save()
        (folders, items) = try stored(open)
        #expect(folders == ["F:[]", "G:[\"mine\"]"])
        #expect(items == ["mine->G", "theirs->nil"])
    }

    /// Inserted explicitly into another context of the container before a save, the new owner
    /// leaves the member's context (which has nothing to save then) and that context's save
    /// refuses the member of the other one, as it did before the relationship inserted it.
    @Test(arguments: BookkeepingStore.allCases)
    func anExplicitInsertIntoAnotherContextTakesTheNewOwner(_ kind: BookkeepingStore) throws {
        let open = try kind.opener()
        let container = try open()
        let first = ModelContext(container), second = ModelContext(container)
        let folder = BkFolder(title: "F"), item = BkItem(label: "x")
        first.insert(folder)
        folder.items.append(item)
        try first.save()
        let newFolder = BkFolder(title: "G")
        newFolder.items.append(item)
        #expect(first.hasChanges)
        second.insert(newFolder)
        #expect(!first.hasChanges, "the explicit insert took it")
        #expect(first.insertedModelsArray.isEmpty)
        try first.save()
        let error = try #require(throws: ModelContextError.self) { try second.save() }
        #expect(error.code == .modelOfAnotherContext)
        #expect(error.message.contains("\(item.persistentModelID)"), "names the refused model: \(error.message)")
        let (folders, items) = try stored(open)
        #expect(folders == ["F:[\"x\"]"], "nothing was saved")
        #expect(items == ["x->F"])
    }

    /// An optional to-many (`[CloudStop]?`), set whole or appended to in place, takes the same path.
    @Test(arguments: [false, true])
    func aNewModelWhoseOptionalToManyTakesAHeldModelIsSaved(assignedWhole: Bool) throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let open = { try ModelContainer(for: CloudTrip.self, CloudStop.self, CloudTag.self, configurations: JSONStoreConfiguration(url: url)) }
        let context = ModelContext(try open())
        let trip = CloudTrip(name: "Norway"), bergen = CloudStop(place: "Bergen")
        context.insert(trip)
        trip.stops = [bergen]
        try context.save()
        let newTrip = CloudTrip(name: "Iceland")
        if assignedWhole { newTrip.stops = [bergen] } else { newTrip.stops?.append(bergen) }
        #expect(context.hasChanges)
        try context.save()
        #expect(bergen.trip === newTrip)
        #expect(trip.stops?.isEmpty == true)
        let fresh = ModelContext(try open())
        let trips = try fresh.fetch(FetchDescriptor<CloudTrip>()).map { "\($0.name):\(($0.stops ?? []).map(\.place))" }.sorted()
        #expect(trips == ["Iceland:[\"Bergen\"]", "Norway:[]"])
    }

    /// A model whose context is gone: nothing to insert into; the new owner stays new (no
    /// context counts it). Inserted then, its save meets the let-go instance of a stored model,
    /// which the upsert rule refuses with an error (not silently).
    @Test func aMemberWhoseContextIsGoneInsertsNothing() throws {
        let container = try ModelContainer(for: BkFolder.self, BkItem.self, configurations: MemoryStoreConfiguration())
        let item = BkItem(label: "x")
        do {
            let context = ModelContext(container)
            context.insert(item)
            try context.save()
        }
        let newFolder = BkFolder(title: "G")
        newFolder.items.append(item)
        let context = ModelContext(container)
        #expect(!context.hasChanges)
        context.insert(newFolder)
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BkFolder>()) == 0)
    }

    /// A new owner takes a new member, and only the member is inserted: the owner is inserted
    /// with it (before, nothing led the context to the owner, and the save dropped it and the link).
    @Test(arguments: BookkeepingStore.allCases, [false, true])
    func aNewOwnerOfANewMemberIsInsertedWithTheMember(_ kind: BookkeepingStore, assignedWhole: Bool) throws {
        let open = try kind.opener()
        let context = ModelContext(try open())
        let newFolder = BkFolder(title: "G")
        let item = BkItem(label: "y")
        if assignedWhole { newFolder.items = [item] } else { newFolder.items.append(item) }
        context.insert(item)
        try context.save()
        #expect(item.folder === newFolder)
        let fresh = ModelContext(try open())
        let folders = try fresh.fetch(FetchDescriptor<BkFolder>()).map { "\($0.title):\($0.items.map(\.label))" }
        let items = try fresh.fetch(FetchDescriptor<BkItem>()).map { "\($0.label)->\($0.folder?.title ?? "nil")" }
        #expect(folders == ["G:[\"y\"]"])
        #expect(items == ["y->G"])
    }
}
