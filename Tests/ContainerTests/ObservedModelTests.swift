import Foundation
import JSONStore
import MemoryStore
import Observation
import DataStores
import StoreProtocol
import StoreTestSupport
import Testing

/// A model with a unique title: a context tracks it by the attributes its accessors mark changed.
@Model final class WatchedNote {
    #Unique<WatchedNote>([\.title])
    var id = UUID()
    var title: String
    var tags: [String] = []

    init(title: String) { self.title = title }
}

/// A stored value that counts how often it is encoded: the models holding it count how often a
/// save encodes them (every attribute of a model is encoded when it is). One test uses it (tests
/// run in parallel; the count is the type's).
struct EncodeCounter: Codable, Equatable {
    static let encodes = Locked(0)

    init() {}
    init(from decoder: any Decoder) throws { _ = try decoder.singleValueContainer().decode(Int.self) }
    func encode(to encoder: any Encoder) throws {
        Self.encodes.withLock { $0 += 1 }
        var container = encoder.singleValueContainer()
        try container.encode(0)
    }
}

/// A model that counts how often it is encoded: a context encodes it only when it changed.
@Model final class CountedNote {
    var id = UUID()
    var title: String
    var counter = EncodeCounter()

    init(title: String) { self.title = title }
}

/// Attributes whose `==` does not say whether they are stored the same: every set marks the
/// attribute changed, whatever `==` says.
@Model final class LooselyEqualNote {
    /// Equal when the ids are: a street name change is `==`.
    struct Address: Codable, Equatable {
        var id: Int
        var street: String
        static func == (lhs: Address, rhs: Address) -> Bool { lhs.id == rhs.id }
    }

    var distance = Measurement(value: 1, unit: UnitLength.kilometers)
    var address = Address(id: 1, street: "Old Street")

    init() {}
}

/// A model with a class-typed `Codable` attribute: a change inside the instance calls no setter.
@Model final class SettingsNote {
    /// A reference: changed in place, the model's accessor is not called.
    final class Settings: Codable {
        var volume = 1
    }

    var settings = Settings()

    init() {}
}

/// A model captured by a notification observer (a `@Sendable` closure); the test runs on one
/// thread.
private final class Held<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

@Suite struct ObservedModelTests {
    func container() throws -> ModelContainer {
        try ModelContainer(for: WatchedNote.self, CountedNote.self, LooselyEqualNote.self, SettingsNote.self,
                           configurations: MemoryStoreConfiguration())
    }

    /// Stores `count` notes and returns them fetched into a new context, which holds them.
    func storedNotes(_ count: Int, in container: ModelContainer) throws -> (ModelContext, [WatchedNote]) {
        let seeding = ModelContext(container)
        for number in 0..<count { seeding.insert(WatchedNote(title: "note \(number)")) }
        try seeding.save()
        let context = ModelContext(container)
        return (context, try context.fetch(FetchDescriptor<WatchedNote>(sortBy: [SortDescriptor(\.title)])))
    }

    func storedTitle(of id: UUID, in container: ModelContainer) throws -> String? {
        try ModelContext(container).fetch(FetchDescriptor<WatchedNote>(predicate: #Predicate { $0.id == id })).first?.title
    }

    @Test func aSaveEncodesOnlyTheWatchedModelsThatChanged() throws {
        let container = try container()
        let seeding = ModelContext(container)
        for number in 0..<1_000 { seeding.insert(CountedNote(title: "note \(number)")) }
        try seeding.save()
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<CountedNote>(sortBy: [SortDescriptor(\.title)]))
        let token = try container.currentHistoryToken()
        EncodeCounter.encodes.withLock { $0 = 0 }

        #expect(!context.hasChanges)
        try context.save()
        #expect(EncodeCounter.encodes.withLock { $0 } == 0, "nothing changed: nothing to encode")

        notes[500].title = "renamed"
        #expect(context.hasChanges)
        #expect(context.changedModelsArray.map(\.persistentModelID) == [notes[500].persistentModelID])
        try context.save()
        let encodes = EncodeCounter.encodes.withLock { $0 }
        #expect((1...4).contains(encodes), "the one changed note, not 1,000 (\(encodes) encodes)")
        #expect(!context.hasChanges)

        let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
        let updates = transactions.flatMap(\.changes).compactMap { change -> DefaultHistoryUpdate<CountedNote>? in
            if case .update(let update as DefaultHistoryUpdate<CountedNote>) = change { update } else { nil }
        }
        #expect(updates.count == 1 && updates.first?.changedPersistentIdentifier == notes[500].persistentModelID)
        #expect(updates.first?.updatedAttributes.count == 1 && updates.first?.updatedAttributes.first == \CountedNote.title)
        let id = notes[500].id
        #expect(try ModelContext(container).fetch(FetchDescriptor<CountedNote>(predicate: #Predicate { $0.id == id })).first?.title == "renamed")
    }

    @Test func deletingAWatchedModelIsSaved() throws {
        let container = try container()
        let (context, notes) = try storedNotes(3, in: container)
        #expect(!context.hasChanges)   // looks at them: settled, they drop out of what saves look at
        context.delete(notes[1])
        #expect(context.hasChanges && context.deletedModelsArray.map(\.persistentModelID) == [notes[1].persistentModelID])
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<WatchedNote>(sortBy: [SortDescriptor(\.title)])).map(\.title)
            == ["note 0", "note 2"])
    }

    @Test func inPlaceMutationsAndRelationshipFreeChangesAreSeen() throws {
        let container = try container()
        let (context, notes) = try storedNotes(3, in: container)
        notes[1].tags.append("urgent")          // through `_modify`
        notes[2][keyPath: \.title] = "by key path"
        try context.save()
        let again = try ModelContext(container).fetch(FetchDescriptor<WatchedNote>(sortBy: [SortDescriptor(\.title)]))
        #expect(again.map(\.title) == ["by key path", "note 0", "note 1"])
        #expect(again.first { $0.id == notes[1].id }?.tags == ["urgent"])
    }

    @Test func aWatchedModelChangedAndLetGoBeforeTheSaveIsSaved() throws {
        let container = try container()
        let id = try storedNotes(2, in: container).1[0].id
        let context = ModelContext(container)
        func changeAndLetGo() throws {
            let note = try #require(try context.fetch(FetchDescriptor<WatchedNote>(predicate: #Predicate { $0.id == id })).first)
            note.title = "changed, then let go"
        }
        try changeAndLetGo()
        try context.save()
        #expect(try storedTitle(of: id, in: container) == "changed, then let go")
    }

    /// A change made after the save read the model's values (here by a `willSave` observer) is
    /// not taken as saved: the next save saves it.
    @Test func aChangeMadeWhileSavingIsSavedByTheNextSave() throws {
        let container = try container()
        let (context, notes) = try storedNotes(2, in: container)
        let late = Held(notes[1])
        notes[0].title = "first"
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in
            late.value.title = "changed during willSave"
        }
        try context.save()
        NotificationCenter.default.removeObserver(observer)
        #expect(try storedTitle(of: notes[1].id, in: container) == "note 1", "read before the observer ran")
        #expect(context.hasChanges)
        try context.save()
        #expect(try storedTitle(of: notes[1].id, in: container) == "changed during willSave")
    }

    /// Found by an adversarial tester: the stored values a colliding insert takes overwrote a
    /// change made after the save read it.
    @Test func aChangeMadeWhileSavingAnInsertThatBecameAnUpdateIsKept() throws {
        let container = try container()
        let context = ModelContext(container)
        _ = try storedNotes(1, in: container)
        let twin = WatchedNote(title: "note 0")
        let held = Held(twin)
        context.insert(twin)
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in
            held.value.tags = ["set during willSave"]
        }
        try context.save()
        NotificationCenter.default.removeObserver(observer)
        #expect(twin.tags == ["set during willSave"], "the instance keeps the change")
        #expect(context.hasChanges)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<WatchedNote>()).map(\.tags) == [["set during willSave"]])
    }

    @Test func aModelRefreshedByAFetchIsWatchedAgain() throws {
        let container = try container()
        let (context, notes) = try storedNotes(1, in: container)
        let other = ModelContext(container)
        let theirs = try #require(try other.fetch(FetchDescriptor<WatchedNote>()).first)
        theirs.title = "theirs"
        try other.save()

        let refreshed = try context.fetch(FetchDescriptor<WatchedNote>())
        #expect(refreshed.first === notes[0] && notes[0].title == "theirs", "the held instance takes the stored values")
        #expect(!context.hasChanges)
        notes[0].tags = ["mine"]
        try context.save()
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<WatchedNote>()).first)
        #expect(stored.title == "theirs" && stored.tags == ["mine"])
    }

    @Test func rollbackAndUndoLeaveTheModelWatched() throws {
        let container = try container()
        let (context, notes) = try storedNotes(1, in: container)
        notes[0].title = "rolled back"
        context.rollback()
        #expect(notes[0].title == "note 0" && !context.hasChanges)
        notes[0].title = "after rollback"
        try context.save()
        #expect(try storedTitle(of: notes[0].id, in: container) == "after rollback")

        context.undoManager = ModelUndoManager()
        notes[0].title = "undone"
        try context.processPendingChanges()
        context.undoManager?.undo()
        #expect(notes[0].title == "after rollback")
        try context.save()
        notes[0].title = "after undo"
        try context.save()
        #expect(try storedTitle(of: notes[0].id, in: container) == "after undo")
    }

    /// An insert that collides with a stored note's unique title becomes that note: the instance
    /// now stands for the stored identifier, and its later changes are saved under it.
    @Test func anInsertThatBecameAnUpdateStaysWatched() throws {
        let container = try container()
        let (_, notes) = try storedNotes(1, in: container)
        let context = ModelContext(container)
        let twin = WatchedNote(title: "note 0")
        context.insert(twin)
        try context.save()
        #expect(twin.persistentModelID == notes[0].persistentModelID)
        twin.tags = ["twin"]
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<WatchedNote>()).map(\.tags) == [["twin"]])
    }

    @Test(arguments: [false, true]) func watchedModelsNoOneHoldsAreForgotten(onJSON: Bool) throws {
        let container = onJSON
            ? try ModelContainer(for: WatchedNote.self, configurations: JSONStoreConfiguration(url: try temporaryDirectory().appending(path: "notes.json")))
            : try container()
        let seeding = ModelContext(container)
        for number in 0..<2_000 { seeding.insert(WatchedNote(title: "note \(number)")) }
        try seeding.save()
        let context = ModelContext(container)
        func fetchAndLetGo() throws -> [PersistentIdentifier] {
            try context.fetch(FetchDescriptor<WatchedNote>()).map(\.persistentModelID)
        }
        let identifiers = try fetchAndLetGo()
        #expect(identifiers.allSatisfy { (context.registeredModel(for: $0) as WatchedNote?) != nil })
        try context.save()
        #expect(identifiers.allSatisfy { (context.registeredModel(for: $0) as WatchedNote?) == nil })
    }

    /// The model a save saved is looked at by the next save: let go in between, it is forgotten
    /// then, not only when the context has doubled.
    @Test func aWatchedModelSavedAndLetGoIsForgottenByTheNextSave() throws {
        let container = try container()
        let id = try storedNotes(3, in: container).1[1].id
        let context = ModelContext(container)
        func changeAndSave() throws -> PersistentIdentifier {
            let note = try #require(try context.fetch(FetchDescriptor<WatchedNote>(predicate: #Predicate { $0.id == id })).first)
            note.title = "changed"
            try context.save()
            return note.persistentModelID
        }
        let changed = try changeAndSave()
        #expect((context.registeredModel(for: changed) as WatchedNote?) != nil, "held until its save ended")
        try context.save()
        #expect((context.registeredModel(for: changed) as WatchedNote?) == nil)
        #expect(try storedTitle(of: id, in: container) == "changed")
    }

    /// Found by an adversarial tester (on the `@Observable` models this replaced): with
    /// `Measurement` and an id-only `==`, a set of a value `==` to the old one was lost. A set
    /// marks the attribute changed whatever `==` says.
    @Test func aSetOfAnEqualValueStoredDifferentlyIsSaved() throws {
        let container = try container()
        let seeding = ModelContext(container)
        seeding.insert(LooselyEqualNote())
        try seeding.save()
        let context = ModelContext(container)
        let note = try #require(try context.fetch(FetchDescriptor<LooselyEqualNote>()).first)
        note.distance = Measurement(value: 1_000, unit: UnitLength.meters)   // == 1 km
        note.address = LooselyEqualNote.Address(id: 1, street: "New Street")  // == by id
        #expect(context.hasChanges)
        try context.save()
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<LooselyEqualNote>()).first)
        #expect(stored.distance.unit == UnitLength.meters && stored.distance.value == 1_000)
        #expect(stored.address.street == "New Street")
    }

    /// A defect (the adversarial tester's class attribute, back with `@Model`): a class-typed
    /// `Codable` attribute compiles, and a change made inside its instance is neither seen nor
    /// saved. The `@Observable` models compared such attributes by encoding; `@Model` tracks sets
    /// only, so the fix is to refuse a class-typed attribute at compile time (ModelCoding) or to
    /// compare it at save. Held as a known issue until then.
    @Test func anInPlaceChangeOfAClassAttributeIsSaved() throws {
        let container = try container()
        let seeding = ModelContext(container)
        seeding.insert(SettingsNote())
        try seeding.save()
        let context = ModelContext(container)
        let note = try #require(try context.fetch(FetchDescriptor<SettingsNote>()).first)
        note.settings.volume = 7   // the same instance: no set
        withKnownIssue("@Model tracks sets: a class attribute changed in place is lost") {
            #expect(context.hasChanges)
            try context.save()
            #expect(try ModelContext(container).fetch(FetchDescriptor<SettingsNote>()).first?.settings.volume == 7)
        }
    }
}
