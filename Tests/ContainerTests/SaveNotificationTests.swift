import Foundation
import MemoryStore
import DataStores
import StoreTestSupport
import Testing

/// A member whose email is unique: an insert with a stored email updates the stored member.
@Model final class NotifiedMember {
    #Unique<NotifiedMember>([\.email])
    var id = UUID()
    var name: String
    var email: String

    init(name: String, email: String) {
        self.name = name
        self.email = email
    }
}

@Suite struct SaveNotificationTests {
    func container() throws -> ModelContainer {
        try ModelContainer(for: NotifiedMember.self, configurations: MemoryStoreConfiguration())
    }

    @Test func didSaveCarriesTheSavedIdentifiersAndWillSaveComesBeforeTheStoreChanges() throws {
        let container = try container()
        let context = ModelContext(container)
        let ana = NotifiedMember(name: "Ana", email: "ana@example.com")
        let bo = NotifiedMember(name: "Bo", email: "bo@example.com")
        context.insert(ana)
        context.insert(bo)
        try context.save()

        let (anaID, boID) = (ana.persistentModelID, bo.persistentModelID)
        let seen = Locked<[String]>([])
        let center = NotificationCenter.default
        let willSave = center.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in
            let stored = (try? ModelContext(container).fetchCount(FetchDescriptor<NotifiedMember>())) ?? -1
            seen.withLock { $0.append("willSave with \(stored) stored") }
        }
        let didSave = center.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { notification in
            let info = notification.userInfo ?? [:]
            func names(_ key: ModelContext.NotificationKey) -> String {
                let ids = info[key.rawValue] as? [PersistentIdentifier] ?? []
                return ids.map { id in id == anaID ? "Ana" : id == boID ? "Bo" : "new" }.joined(separator: ",")
            }
            seen.withLock { $0.append("didSave inserted [\(names(.insertedIdentifiers))] updated [\(names(.updatedIdentifiers))] deleted [\(names(.deletedIdentifiers))]") }
        }
        defer {
            center.removeObserver(willSave)
            center.removeObserver(didSave)
        }

        ana.name = "Ana María"
        context.delete(bo)
        context.insert(NotifiedMember(name: "Cy", email: "cy@example.com"))
        try context.save()
        try context.save()   // nothing changed: willSave only
        #expect(seen.withLock { $0 } == [
            "willSave with 2 stored",
            "didSave inserted [new] updated [Ana] deleted [Bo]",
            "willSave with 2 stored",
        ])
    }

    @Test func didSaveSummariesStreamEachSaveThatChangedSomething() async throws {
        let container = try container()
        let context = ModelContext(container)
        let summaries = context.didSaveSummaries()
        let ana = try insertAndLetGo(NotifiedMember(name: "Ana", email: "ana@example.com"), into: context)
        try context.save()   // nothing: no summary (and Ana, held by no one, is forgotten)
        // An insert that the unique email makes an update of Ana.
        let again = NotifiedMember(name: "Ana again", email: "ana@example.com")
        context.insert(again)
        try context.save()
        var iterator = summaries.makeAsyncIterator()
        #expect(await iterator.next() == ModelContext.SaveSummary(inserted: [ana]))
        #expect(await iterator.next() == ModelContext.SaveSummary(updated: [ana]))
    }

    /// Inserts and saves `member`, keeping nothing but its identifier.
    @inline(never)
    func insertAndLetGo(_ member: NotifiedMember, into context: ModelContext) throws -> PersistentIdentifier {
        context.insert(member)
        try context.save()
        return member.persistentModelID
    }

    /// A colliding insert while the context holds the stored instance updates that instance, as
    /// SwiftData's upsert: it shows the inserted values and stays tracked (the adversary's case
    /// first: its later changes were lost; then the import case: it was refused).
    @Test func anInsertCollidingWithAHeldModelUpdatesIt() throws {
        let container = try container()
        let context = ModelContext(container)
        let ana = NotifiedMember(name: "Ana", email: "ana@example.com")
        context.insert(ana)
        try context.save()
        let updated = Locked<[[PersistentIdentifier]]>([])
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            let ids = note.userInfo?[ModelContext.NotificationKey.updatedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
            updated.withLock { $0.append(ids) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let again = NotifiedMember(name: "Ana again", email: "ana@example.com")
        context.insert(again)
        try context.save()
        #expect(ana.name == "Ana again", "the held instance shows the inserted values")
        #expect(updated.withLock { $0 } == [[ana.persistentModelID]], "didSave reports an update of the held model")
        #expect(context.registeredModel(for: ana.persistentModelID) as NotifiedMember? === ana)
        #expect(context.registeredModel(for: again.persistentModelID) as NotifiedMember? == nil, "the inserted instance is not tracked")
        ana.name = "Ana María"
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<NotifiedMember>()).map(\.name) == ["Ana María"])
        // Another instance with the held model's id: SwiftData's upsert, as for the unique email
        // (this test refused it before; the context still holds one instance per id).
        let twin = NotifiedMember(name: "Twin", email: "twin@example.com")
        twin.id = ana.id
        context.insert(twin)
        try context.save()
        #expect(ana.name == "Twin" && ana.email == "twin@example.com", "the held instance shows the inserted values")
        #expect(context.registeredModel(for: ana.persistentModelID) as NotifiedMember? === ana)
        #expect(try ModelContext(container).fetch(FetchDescriptor<NotifiedMember>()).map(\.name) == ["Twin"])
    }

    @Test func aSaveThatFailsPostsNoDidSave() throws {
        let container = try ModelContainer(for: NotifiedMember.self, configurations: MemoryStoreConfiguration(allowsSave: false))
        let context = ModelContext(container)
        let posted = Locked(0)
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { _ in
            posted.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        context.insert(NotifiedMember(name: "Ana", email: "ana@example.com"))
        #expect(throws: DataStoreError.self) { try context.save() }
        #expect(posted.withLock { $0 } == 0)
    }
}
