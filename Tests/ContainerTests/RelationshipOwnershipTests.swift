import Foundation
import MemoryStore
import StoreConformance
import StoreProtocol
import Testing

/// A relationship may hold only models this context may store: new ones (inserted with their
/// owner) and its own instances. Another container's model, another context's instance and a
/// model deleted and saved are refused with a typed error, and nothing is saved (found by a
/// relationship acceptance program: each was stored, copied or resurrected without a word).
@Suite struct RelationshipOwnershipTests {
    static func container() throws -> ModelContainer {
        try ModelContainer(for: Schema([SuiteVoyage.self]), configurations: [MemoryStoreConfiguration()])
    }

    static func count<T: PersistentModel>(_ type: T.Type, in container: ModelContainer) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<T>())
    }

    @Test func aModelOfAnotherContainerIsRefusedInAToMany() throws {
        let mine = try Self.container(), theirs = try Self.container()
        let theirContext = ModelContext(theirs)
        let item = SuiteBucketItem(title: "theirs")
        theirContext.insert(item)
        try theirContext.save()

        let context = ModelContext(mine)
        let voyage = SuiteVoyage(name: "Iceland")
        voyage.bucketList = [item]
        context.insert(voyage)
        let error = try #require(throws: ModelContextError.self) { try context.save() }
        #expect(error.code == .modelOfAnotherContext)
        #expect(error.message.contains("\(item.persistentModelID)"), "names the model: \(error.message)")
        #expect(error.message.contains("another container"), "says whose it is: \(error.message)")
        #expect(error.message.contains("bucketList"), "names the relationship: \(error.message)")
        #expect(try Self.count(SuiteVoyage.self, in: mine) == 0, "nothing was saved")
        #expect(try Self.count(SuiteBucketItem.self, in: mine) == 0, "the item was not copied into this store")
        #expect(item.voyage == nil, "the inverse was not set on the other container's model")

        // Its later rename stays in its own store, and its context still tracks it alone.
        item.title = "renamed"
        #expect(theirContext.hasChanges)
        try theirContext.save()
        #expect(try ModelContext(theirs).fetch(FetchDescriptor<SuiteBucketItem>()).map(\.title) == ["renamed"])
        #expect(try Self.count(SuiteBucketItem.self, in: mine) == 0)

        // Taken out of the relationship, the voyage saves alone.
        voyage.bucketList = []
        try context.save()
        #expect(try Self.count(SuiteVoyage.self, in: mine) == 1)
    }

    @Test func aModelOfAnotherContainerIsRefusedInAToOne() throws {
        let mine = try Self.container(), theirs = try Self.container()
        let theirContext = ModelContext(theirs)
        let place = SuiteAccommodation(place: "theirs")
        theirContext.insert(place)
        let context = ModelContext(mine)
        let voyage = SuiteVoyage(name: "Iceland")
        context.insert(voyage)
        try context.save()
        voyage.livingAccommodation = place   // a registered model's change, not an insert
        #expect(throws: ModelContextError.modelOfAnotherContext) { try context.save() }
        #expect(try Self.count(SuiteAccommodation.self, in: mine) == 0)
        #expect(place.voyage == nil)
    }

    @Test func anotherContextsInstanceOfAHeldModelIsRefusedInAToMany() throws {
        let container = try Self.container()
        let setup = ModelContext(container)
        setup.insert(SuiteVoyage(name: "Iceland"))
        setup.insert(SuiteBucketItem(title: "hike"))
        try setup.save()

        let context = ModelContext(container), other = ModelContext(container)
        let voyage = try #require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first)
        let held = try #require(try context.fetch(FetchDescriptor<SuiteBucketItem>()).first)
        let theirs = try #require(try other.fetch(FetchDescriptor<SuiteBucketItem>()).first)
        #expect(held !== theirs)
        voyage.bucketList.append(theirs)
        let error = try #require(throws: ModelContextError.self) { try context.save() }
        #expect(error.code == .modelOfAnotherContext)
        #expect(error.message.contains("\(held.persistentModelID)"), "names the model: \(error.message)")
        #expect(error.message.contains("another instance") && error.message.contains("ModelContext"),
                "names the contexts: \(error.message)")
        #expect(theirs.voyage == nil, "the other context's instance was not changed")
        #expect(!other.hasChanges, "nothing pending in the other context")
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>()).first)
        #expect(stored.bucketList.isEmpty, "nothing was saved")

        // The instance this context holds works.
        voyage.bucketList = [held]
        try context.save()
        #expect(held.voyage === voyage)
        #expect(try ModelContext(container).fetch(FetchDescriptor<SuiteBucketItem>()).first?.voyage?.name == "Iceland")
    }

    @Test func anotherContextsInstanceOfAModelNotHeldHereIsRefused() throws {
        let container = try Self.container()
        let setup = ModelContext(container)
        setup.insert(SuiteBucketItem(title: "hike"))
        try setup.save()
        let other = ModelContext(container)
        let theirs = try #require(try other.fetch(FetchDescriptor<SuiteBucketItem>()).first)
        let context = ModelContext(container)
        let voyage = SuiteVoyage(name: "Iceland")
        voyage.bucketList = [theirs]
        context.insert(voyage)
        #expect(throws: ModelContextError.modelOfAnotherContext) { try context.save() }
        #expect(try Self.count(SuiteVoyage.self, in: container) == 0)
        #expect(theirs.voyage == nil)
    }

    @Test func aDeletedAndSavedModelIsNotResurrectedByARelationship() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let gone = SuiteVoyage(name: "gone")
        let keeper = SuiteAccommodation(place: "keeper")
        context.insert(gone)
        context.insert(keeper)
        try context.save()
        context.delete(gone)
        try context.save()

        keeper.voyage = gone
        let error = try #require(throws: ModelContextError.self) { try context.save() }
        #expect(error.code == .deletedModel)
        #expect(error.message.contains("\(gone.persistentModelID)"), "names the model: \(error.message)")
        #expect(error.message.contains("`voyage`"), "names the relationship: \(error.message)")
        #expect(try Self.count(SuiteVoyage.self, in: container) == 0, "the deleted voyage was not stored again")
        #expect(gone.livingAccommodation == nil)

        // A new model in its place saves.
        keeper.voyage = SuiteVoyage(name: "new")
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>()).map(\.name) == ["new"])
    }

    @Test func aModelDeletedByAnotherContextOrABatchDeleteIsRefusedToo() throws {
        let container = try Self.container()
        let setup = ModelContext(container)
        let gone = SuiteVoyage(name: "gone")
        setup.insert(gone)
        try setup.save()
        try setup.delete(model: SuiteVoyage.self)   // a batch delete forgets the instance

        let context = ModelContext(container)
        let item = SuiteBucketItem(title: "hike")
        item.voyage = gone
        context.insert(item)
        #expect(throws: ModelContextError.deletedModel) { try context.save() }
        #expect(try Self.count(SuiteVoyage.self, in: container) == 0)
        #expect(try Self.count(SuiteBucketItem.self, in: container) == 0)
    }

    @Test func insertingADeletedModelAgainStoresItAgain() throws {
        // An explicit insert is a decision; only a relationship's silent insert is refused.
        let container = try Self.container()
        let context = ModelContext(container)
        let voyage = SuiteVoyage(name: "back")
        context.insert(voyage)
        try context.save()
        context.delete(voyage)
        try context.save()
        context.insert(voyage)
        let item = SuiteBucketItem(title: "hike")
        item.voyage = voyage
        context.insert(item)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<SuiteBucketItem>()).first?.voyage?.name == "back")
    }
}

extension RelationshipOwnershipTests {
    @Test func insertingAModelOfAnotherContainerIsRefused() throws {
        let mine = try Self.container(), theirs = try Self.container()
        let theirContext = ModelContext(theirs)
        let voyage = SuiteVoyage(name: "theirs")
        theirContext.insert(voyage)
        try theirContext.save()
        let context = ModelContext(mine)
        context.insert(voyage)
        let error = try #require(throws: ModelContextError.self) { try context.save() }
        #expect(error.code == .modelOfAnotherContext)
        #expect(error.message.contains("\(voyage.persistentModelID)") && error.message.contains("another container"), "\(error.message)")
        #expect(try Self.count(SuiteVoyage.self, in: mine) == 0)
        context.rollback()
        try context.save()
        #expect(try Self.count(SuiteVoyage.self, in: mine) == 0)
    }

    /// Deleting another container's model is refused too (found by an adversary: the delete was
    /// accepted, deleted nothing, and registered the model here, so that a later insert copied
    /// it into this container's store and its own context's edits no longer reached its store).
    @Test func deletingAModelOfAnotherContainerIsRefused() throws {
        let mine = try Self.container(), theirs = try Self.container()
        let theirContext = ModelContext(theirs)
        let voyage = SuiteVoyage(name: "theirs")
        theirContext.insert(voyage)
        try theirContext.save()
        let token = try mine.currentHistoryToken()
        let context = ModelContext(mine)
        context.delete(voyage)
        let error = try #require(throws: ModelContextError.self) { try context.save() }
        #expect(error.code == .modelOfAnotherContext)
        #expect(error.message.contains("\(voyage.persistentModelID)") && error.message.contains("another container"), "\(error.message)")
        #expect(try mine.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token)).isEmpty, "nothing saved here")
        #expect(try Self.count(SuiteVoyage.self, in: theirs) == 1, "nothing deleted there")

        // Not registered here: inserting it in a fresh context is still refused, and its own
        // context's edits still reach its own store.
        let another = ModelContext(mine)
        another.insert(voyage)
        #expect(throws: ModelContextError.self) { try another.save() }
        #expect(try Self.count(SuiteVoyage.self, in: mine) == 0, "not copied into this store")
        voyage.name = "renamed"
        try theirContext.save()
        #expect(try ModelContext(theirs).fetch(FetchDescriptor<SuiteVoyage>()).map(\.name) == ["renamed"])

        context.rollback()
        try context.save()
        #expect(try Self.count(SuiteVoyage.self, in: theirs) == 1)
    }
}
