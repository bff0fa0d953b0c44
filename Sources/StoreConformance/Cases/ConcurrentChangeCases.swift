import Foundation
import StoreProtocol

/// Saves of one model from several contexts (issue 28, the lost update): a save writes only the
/// attributes its context changed, merged into the stored row by the store; of two saves that
/// change the same attribute, the later one wins; history lists exactly what changed.
enum ConcurrentChangeCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "merging", name: "twoContextsChangingDifferentAttributesKeepBoth", requires: .updates) { target in
            let container = try target.makeContainer()
            let (a, b) = try twoHolders(of: "Iceland", in: container, container)
            b.trip.rating = 99
            try b.context.save()
            a.trip.destination = "Akureyri"
            try a.context.save()
            try checkEqual(try storedValues(container), ["Akureyri 99 nil"], "the trip after both saves")
            if target.capabilities.contains(.history) {
                try checkEqual(try lastUpdatedAttributes(container), ["destination"], "the second save's updated attributes")
            }
        },
        ConformanceCase(area: "merging", name: "theSameAttributeChangedInTwoContextsTakesTheLaterSave", requires: .updates) { target in
            let container = try target.makeContainer()
            let (a, b) = try twoHolders(of: "Iceland", in: container, container)
            a.trip.destination = "Akureyri"
            try a.context.save()
            b.trip.destination = "Reykjavík"
            try b.context.save()
            try checkEqual(try storedValues(container), ["Reykjavík 0 nil"], "the later save's value")
            // The earlier context still holds "Akureyri"; changing something else does not send it back.
            a.trip.notes = "by boat"
            try a.context.save()
            try checkEqual(try storedValues(container), ["Reykjavík 0 by boat"], "the trip after the earlier context saved another attribute")
            if target.capabilities.contains(.history) {
                try checkEqual(try lastUpdatedAttributes(container), ["notes"], "the last save's updated attributes")
            }
        },
        ConformanceCase(area: "merging", name: "anUndoneChangeSavesOnlyWhatItUndoes", requires: .updates) { target in
            let container = try target.makeContainer()
            let (a, b) = try twoHolders(of: "Iceland", in: container, container)
            let undoing = a.context
            undoing.undoManager = ModelUndoManager()
            a.trip.destination = "Akureyri"
            try undoing.save()
            b.trip.rating = 99
            try b.context.save()
            undoing.undoManager?.undo()
            try checkEqual(a.trip.destination, "Nowhere", "the destination after undo")
            try undoing.save()
            try checkEqual(try storedValues(container), ["Nowhere 99 nil"], "the trip after the undo was saved")
            if target.capabilities.contains(.history) {
                try checkEqual(try lastUpdatedAttributes(container), ["destination"], "the undo's updated attributes")
            }
        },
        ConformanceCase(area: "merging", name: "aRelationshipChangeKeepsAnotherContextsAttributeChange", requires: .updates) { target in
            let container = try target.makeContainer()
            let seed = ModelContext(container)
            let iceland = SuiteVoyage(name: "Iceland"), chile = SuiteVoyage(name: "Chile")
            let geysir = SuiteBucketItem(title: "Geysir")
            for model in [iceland, chile] { seed.insert(model) }
            seed.insert(geysir)
            geysir.voyage = iceland
            try seed.save()
            let moving = ModelContext(container), renaming = ModelContext(container)
            let moved = try require(try moving.fetch(FetchDescriptor<SuiteBucketItem>()).first, "the item in the moving context")
            let renamed = try require(try renaming.fetch(FetchDescriptor<SuiteBucketItem>()).first, "the item in the renaming context")
            renamed.title = "Strokkur"
            try renaming.save()
            moved.voyage = try require(try moving.fetch(FetchDescriptor<SuiteVoyage>(predicate: #Predicate { $0.name == "Chile" })).first, "Chile")
            try moving.save()
            let stored = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteBucketItem>()).first, "the stored item")
            try checkEqual(stored.title, "Strokkur", "the item's title, changed by the other context")
            try checkEqual(stored.voyage?.name, "Chile", "the item's voyage, changed by this context")
        },
        ConformanceCase(area: "merging", name: "aStoreWritesOnlyTheAttributesAnUpdateNames", requires: .updates) { target in
            let container = try target.makeContainer()
            let trip = SuiteTrip(name: "Iceland", rating: 5, notes: "stored")
            let context = ModelContext(container)
            context.insert(trip)
            try context.save()
            let store = try require(container.stores.first, "the store")
            // Everything in the snapshot differs from the row; only destination and notes are named.
            var values = try trip.storedValues()
            values["destination"] = .string("Akureyri")
            values["rating"] = .int(1)
            values["notes"] = nil
            let snapshot = DefaultSnapshot(persistentIdentifier: trip.persistentModelID, values: values)
            try saveUpdate(snapshot, naming: ["destination", "notes"], into: store)
            try checkEqual(try storedValues(container), ["Akureyri 5 nil"], "the row after an update naming destination and notes")
            if target.capabilities.contains(.history) {
                try checkEqual(try lastUpdatedAttributes(container), ["destination", "notes"], "the update's updated attributes")
            }
            try checkThrows(DataStoreError(.invalidSchema, ""), "an update naming an attribute the entity does not have") {
                try saveUpdate(snapshot, naming: ["destination", "colour"], into: store)
            }
            try checkEqual(try storedValues(container), ["Akureyri 5 nil"], "the row after the refused update")
        },
        ConformanceCase(area: "merging", name: "twoStoresOnOneConfigurationChangingDifferentAttributesKeepBoth",
                        requires: [.updates, .persistence]) { target in
            // Two containers on one configuration: the store's own instances, as two processes have.
            let configuration = try target.makeConfiguration()
            let first = try target.open(configuration), second = try target.open(configuration)
            let (a, b) = try twoHolders(of: "Iceland", in: first, second)
            b.trip.rating = 99
            try b.context.save()
            a.trip.destination = "Akureyri"
            try a.context.save()
            try checkEqual(try storedValues(first), ["Akureyri 99 nil"], "the trip, read through the first container")
            try checkEqual(try storedValues(second), ["Akureyri 99 nil"], "the trip, read through the second container")
        },
    ]

    /// A trip fetched by a context of its own.
    struct Holder {
        let context: ModelContext
        let trip: SuiteTrip
    }

    /// Saves one trip named `name` through `first`, and returns it as fetched by a new context of
    /// `first` and by one of `second`.
    private static func twoHolders(of name: String, in first: ModelContainer, _ second: ModelContainer) throws -> (Holder, Holder) {
        try insertTrips([name], into: first)
        func fetched(_ container: ModelContainer) throws -> Holder {
            let context = ModelContext(container)
            return Holder(context: context, trip: try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "\(name) in a new context"))
        }
        return (try fetched(first), try fetched(second))
    }

    /// Each stored trip's destination, rating and notes, read by a new context.
    private static func storedValues(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).map { "\($0.destination) \($0.rating) \($0.notes ?? "nil")" }
    }

    /// The sorted attribute names of the last transaction's only change, an update of a trip.
    private static func lastUpdatedAttributes(_ container: ModelContainer) throws -> [String] {
        let last = try require(try history(container).last, "the last transaction")
        guard last.changes.count == 1, case .update(let update as DefaultHistoryUpdate<SuiteTrip>) = last.changes[0] else {
            throw ConformanceFailure("expected one update of a SuiteTrip, saw \(kinds(last))")
        }
        return update.updatedAttributes.compactMap { SuiteTrip.attributeName(of: $0) }.sorted()
    }

    /// Sends an update straight to a store, naming the attributes it changes.
    private static func saveUpdate(_ snapshot: DefaultSnapshot, naming names: Set<String>, into store: any DataStore) throws {
        func run<S: DataStore>(_ store: S) throws {
            _ = try store.save(DataStoreSaveChangesRequest(
                editingState: EditingState(author: "suite"),
                updated: [S.Snapshot(persistentIdentifier: snapshot.persistentIdentifier, values: snapshot.values)],
                updatedAttributes: [snapshot.persistentIdentifier: names]))
        }
        try run(store)
    }
}
