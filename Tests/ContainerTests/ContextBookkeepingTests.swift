import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// An adversary's defects in the context's bookkeeping around relationships, deletes, rollback
/// and batch delete (D1–D4, D6), on MemoryStore and on the JSON store (reopened: what is read
/// back is what the store holds).
@Model final class BkFolder {
    var title: String
    @Relationship(deleteRule: .cascade, inverse: \BkItem.folder) var items: [BkItem] = []
    init(title: String) { self.title = title }
}

@Model final class BkItem {
    var label: String
    var folder: BkFolder?
    init(label: String) { self.label = label }
}

/// A model outside the containers' schema.
@Model final class BkOutsider {
    var name: String
    init(name: String) { self.name = name }
}

enum BookkeepingStore: String, CaseIterable, CustomTestStringConvertible {
    case memory, json
    var testDescription: String { rawValue }

    /// Opens the container again each call (the JSON store from its file; MemoryStore's is the same container).
    func opener() throws -> () throws -> ModelContainer {
        switch self {
        case .memory:
            let container = try ModelContainer(for: BkFolder.self, BkItem.self, configurations: MemoryStoreConfiguration())
            return { container }
        case .json:
            let url = try temporaryDirectory().appending(path: "store.json")
            return { try ModelContainer(for: BkFolder.self, BkItem.self, configurations: JSONStoreConfiguration(url: url)) }
        }
    }
}

@Suite struct ContextBookkeepingTests {
    /// The report's setup: a folder inserted and saved, held by `context`.
    private func setUp(_ kind: BookkeepingStore) throws -> (open: () throws -> ModelContainer, context: ModelContext, folder: BkFolder) {
        let open = try kind.opener()
        let context = ModelContext(try open())
        let folder = BkFolder(title: "F")
        context.insert(folder)
        try context.save()
        return (open, context, folder)
    }

    /// What a fresh context on the reopened container reads: each folder's title and its items' labels.
    private func stored(_ open: () throws -> ModelContainer) throws -> [String: [String]] {
        let fresh = ModelContext(try open())
        var result: [String: [String]] = [:]
        for folder in try fresh.fetch(FetchDescriptor<BkFolder>()) { result[folder.title] = folder.items.map(\.label).sorted() }
        let items = try fresh.fetch(FetchDescriptor<BkItem>())
        #expect(items.allSatisfy { item in item.folder.map { $0.items.contains { $0 === item } } ?? true })
        result["(items)"] = items.map(\.label).sorted()
        return result
    }

    // MARK: D3: a new model related to a held one is inserted at once

    @Test(arguments: BookkeepingStore.allCases)
    func aNewModelSetToAHeldModelThroughItsToOneIsInsertedAtOnce(_ kind: BookkeepingStore) throws {
        let (open, context, folder) = try setUp(kind)
        let item = BkItem(label: "x")
        item.folder = folder
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.map { $0 as AnyObject }.contains { $0 === item })
        #expect(try context.fetchCount(FetchDescriptor<BkItem>()) == 1)
        #expect(try context.fetch(FetchDescriptor<BkItem>()).first === item)
        try context.save()
        #expect(try stored(open) == ["F": ["x"], "(items)": ["x"]])
    }

    @Test(arguments: BookkeepingStore.allCases)
    func aNewModelAppendedToAHeldModelsToManyIsInsertedAtOnce(_ kind: BookkeepingStore) throws {
        let (open, context, folder) = try setUp(kind)
        let item = BkItem(label: "x")
        folder.items.append(item)
        #expect(context.insertedModelsArray.map { $0 as AnyObject }.contains { $0 === item })
        #expect(try context.fetchCount(FetchDescriptor<BkItem>()) == 1)
        try context.save()
        #expect(try stored(open) == ["F": ["x"], "(items)": ["x"]])
    }

    @Test(arguments: BookkeepingStore.allCases)
    func newModelsInAnArrayAssignedWholeAreInsertedAtOnce(_ kind: BookkeepingStore) throws {
        let (open, context, folder) = try setUp(kind)
        let (a, b) = (BkItem(label: "a"), BkItem(label: "b"))
        folder.items = [a, b]
        let inserted = context.insertedModelsArray.map { $0 as AnyObject }
        #expect(inserted.count == 2 && inserted.contains { $0 === a } && inserted.contains { $0 === b })
        #expect(try context.fetchCount(FetchDescriptor<BkItem>()) == 2)
        try context.save()
        #expect(try stored(open) == ["F": ["a", "b"], "(items)": ["a", "b"]])
    }

    /// The other direction of a to-one: a held model's to-one set to a new model.
    @Test(arguments: BookkeepingStore.allCases)
    func aNewModelSetAsAHeldModelsToOneIsInsertedAtOnce(_ kind: BookkeepingStore) throws {
        let (open, context, folder) = try setUp(kind)
        let item = BkItem(label: "x")
        folder.items.append(item)
        try context.save()
        let other = BkFolder(title: "G")
        item.folder = other
        #expect(context.insertedModelsArray.map { $0 as AnyObject }.contains { $0 === other })
        #expect(try context.fetchCount(FetchDescriptor<BkFolder>()) == 2)
        try context.save()
        #expect(try stored(open) == ["F": [], "G": ["x"], "(items)": ["x"]])
    }

    // MARK: D2: rollback drops a new model linked through its own to-one

    @Test(arguments: BookkeepingStore.allCases)
    func rollbackDropsANewModelLinkedThroughItsToOne(_ kind: BookkeepingStore) throws {
        let (open, context, folder) = try setUp(kind)
        let item = BkItem(label: "draft")
        item.folder = folder
        context.rollback()
        #expect(!context.hasChanges)
        #expect(context.insertedModelsArray.isEmpty)
        try context.save()
        folder.title = "later"
        try context.save()
        #expect(try stored(open) == ["later": [], "(items)": []])
        withExtendedLifetime(item) {}
    }

    @Test(arguments: BookkeepingStore.allCases)
    func rollbackDropsANewModelAppendedToAToMany(_ kind: BookkeepingStore) throws {
        let (open, context, folder) = try setUp(kind)
        let item = BkItem(label: "draft")
        folder.items.append(item)
        context.rollback()
        #expect(folder.items.isEmpty)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try stored(open) == ["F": [], "(items)": []])
        withExtendedLifetime(item) {}
    }

    // MARK: D1: a new model deleted before a save leaves its related model saveable

    @Test(arguments: BookkeepingStore.allCases, [false, true])
    func deletingANewLinkedModelBeforeASaveLeavesItsOwnerSaveable(_ kind: BookkeepingStore, throughToOne: Bool) throws {
        let (open, context, folder) = try setUp(kind)
        var keep: [BkItem] = []
        let item = BkItem(label: "x")
        keep.append(item)
        if throughToOne { item.folder = folder } else { folder.items.append(item) }
        context.delete(item)
        try context.save()
        folder.title = "renamed"
        try context.save()
        #expect(!context.hasChanges)
        #expect(try stored(open) == ["renamed": [], "(items)": []])
        #expect(keep.count == 1)
    }

    /// The message names the relationship of the model that holds the deleted one: here the
    /// deleted item's own to-one, not a relationship of the folder (which has none named so).
    @Test(arguments: BookkeepingStore.allCases)
    func aDeletedModelReferringThroughItsToOneIsNamedWithItsOwnRelationship(_ kind: BookkeepingStore) throws {
        let (_, context, folder) = try setUp(kind)
        let item = BkItem(label: "x")
        folder.items.append(item)
        try context.save()
        context.delete(item)
        try context.save()
        item.folder = folder
        folder.title = "renamed"
        let error = #expect(throws: ModelContextError.self) { try context.save() }
        let message = error.map { "\($0)" } ?? ""
        #expect(error?.code == .deletedModel)
        #expect(message.contains("\(item.persistentModelID)'s relationship `folder`"), "\(message)")
        #expect(!message.contains("\(folder.persistentModelID)'s relationship `folder`"), "\(message)")
    }

    // MARK: D4: a batch delete takes the deleted models out of held relationships

    @Test(arguments: BookkeepingStore.allCases)
    func aBatchDeleteTakesTheDeletedModelsOutOfHeldRelationships(_ kind: BookkeepingStore) throws {
        let (open, context, folder) = try setUp(kind)
        folder.items.append(BkItem(label: "a"))
        folder.items.append(BkItem(label: "b"))
        try context.save()
        try context.delete(model: BkItem.self, where: #Predicate { $0.label == "a" })
        #expect(folder.items.map(\.label) == ["b"])
        #expect(!context.hasChanges)
        _ = try context.fetch(FetchDescriptor<BkFolder>())
        #expect(folder.items.map(\.label) == ["b"])
        try context.delete(model: BkItem.self)
        #expect(folder.items.isEmpty)
        folder.title = "F2"
        try context.save()
        #expect(try stored(open) == ["F2": [], "(items)": []])
    }

    // MARK: D6: an insert outside the schema is a pending change

    @Test(arguments: BookkeepingStore.allCases)
    func anInsertOutsideTheSchemaIsAPendingChange(_ kind: BookkeepingStore) throws {
        let (open, context, _) = try setUp(kind)
        let outsider = BkOutsider(name: "o")
        context.insert(outsider)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.map { $0 as AnyObject }.contains { $0 === outsider })
        #expect(throws: DataStoreError.self) { try context.save() }
        context.rollback()
        #expect(!context.hasChanges)
        #expect(context.insertedModelsArray.isEmpty)
        try context.save()
        #expect(try stored(open) == ["F": [], "(items)": []])
    }
}
