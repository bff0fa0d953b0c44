import Foundation
import JSONStore
import MemoryStore
import Observation
@testable import StoreProtocol
import StoreTestSupport
import Testing

/// How a context tracks `@Model` models (HandExpandedModels.swift): by their backing's changed
/// bits, so a save costs the changes, `updatedAttributes` names exactly the attributes whose
/// values differ, and the bits are cleared when the context settles a model.
@Suite struct ModelBackingTrackingTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: HandTrip.self, configurations: MemoryStoreConfiguration())
    }

    /// The update of `trip`'s save after `change`, from history.
    private func savedUpdate(
        _ container: ModelContainer, _ change: (HandTrip, ModelContext) -> Void
    ) throws -> DefaultHistoryUpdate<HandTrip>? {
        let setUp = ModelContext(container)
        let trip = HandTrip(name: "Fjords")
        trip.startDate = Date(timeIntervalSince1970: 100)
        trip.items = [HandItem("boots")]
        setUp.insert(trip)
        try setUp.save()
        let start = try container.currentHistoryToken()
        let context = ModelContext(container)
        let fetched = try #require(try context.fetch(FetchDescriptor<HandTrip>()).first)
        change(fetched, context)
        try context.save()
        let changes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: start)).flatMap(\.changes)
        return changes.lazy.compactMap { change -> DefaultHistoryUpdate<HandTrip>? in
            guard case .update(let update as DefaultHistoryUpdate<HandTrip>) = change else { return nil }
            return update
        }.first
    }

    @Test func updatedAttributesNamesOnlyTheValuesThatDiffer() throws {
        let update = try #require(try savedUpdate(try container()) { trip, _ in
            trip.name = "Fjords and glaciers"
            trip.startDate = Date(timeIntervalSince1970: 100)   // set to the value it holds
        })
        #expect(update.updatedAttributes.map { $0 as AnyKeyPath } == [\HandTrip.name])
    }

    @Test func aValueSetAndSetBackIsNoChange() throws {
        let container = try container()
        let update = try savedUpdate(container) { trip, context in
            trip.name = "Alps"
            trip.name = "Fjords"
            #expect(!context.hasChanges)
            #expect(context.changedModelsArray.isEmpty)
        }
        #expect(update == nil, "nothing to save")
    }

    @Test func aRelationshipChangeIsAnUpdateOfThatRelationship() throws {
        let update = try #require(try savedUpdate(try container()) { trip, _ in
            trip.items.append(HandItem("map"))
        })
        #expect(update.updatedAttributes.map { $0 as AnyKeyPath } == [\HandTrip.items])
    }

    /// A context holding 2,000 fetched models encodes one at a save after one changed: the backing
    /// reported it; the others cost nothing.
    @Test func aSaveEncodesOnlyTheChangedModels() throws {
        let container = try container()
        let setUp = ModelContext(container)
        for index in 0..<2_000 { setUp.insert(HandLodging("hotel \(index)")) }
        try setUp.save()
        #expect(setUp.modelsEncodedByLastSave == 2_000)

        let context = ModelContext(container)
        let lodgings = try context.fetch(FetchDescriptor<HandLodging>(sortBy: [SortDescriptor(\.hotel)]))
        #expect(lodgings.count == 2_000)
        #expect(!context.hasChanges)
        lodgings[7].nights = 3
        #expect(context.hasChanges)
        try context.save()
        #expect(context.modelsEncodedByLastSave == 1)
        try context.save()
        #expect(context.modelsEncodedByLastSave == 0, "the saved model was settled")
        lodgings[8].hotel = "renamed"
        lodgings[9].hotel = "renamed too"
        try context.save()
        #expect(context.modelsEncodedByLastSave == 2)
        let stored = try ModelContext(container).fetch(FetchDescriptor<HandLodging>(predicate: #Predicate { $0.nights != nil }))
        #expect(stored.map(\.hotel) == [lodgings[7].hotel])
    }

    @Test func rollbackAndRefreshSettleTheModel() throws {
        let container = try container()
        let context = ModelContext(container)
        let lodging = HandLodging("Bryggen")
        context.insert(lodging)
        try context.save()
        lodging.hotel = "Tent"
        #expect(lodging._$backingData.hasChanges)
        context.rollback()
        #expect(lodging.hotel == "Bryggen" && !lodging._$backingData.hasChanges && !context.hasChanges)

        // Another context saves a new value; a fetch here refreshes the unchanged instance.
        let other = ModelContext(container)
        try #require(try other.fetch(FetchDescriptor<HandLodging>()).first).hotel = "Hut"
        try other.save()
        _ = try context.fetch(FetchDescriptor<HandLodging>())
        #expect(lodging.hotel == "Hut" && !lodging._$backingData.hasChanges && !context.hasChanges)
        try context.save()
        #expect(context.modelsEncodedByLastSave == 0)
    }

    /// A save that does not reach the store leaves the changes to save: the bits it took are given
    /// back.
    @Test func aFailedSaveKeepsTheChanges() throws {
        let url = try temporaryDirectory().appending(path: "trips.json")
        let writer = ModelContext(try ModelContainer(for: HandTrip.self, configurations: JSONStoreConfiguration(url: url)))
        writer.insert(HandLodging("Bryggen"))
        try writer.save()
        let readOnly = try ModelContainer(for: HandTrip.self, configurations: JSONStoreConfiguration(url: url, allowsSave: false))
        let context = ModelContext(readOnly)
        let lodging = try #require(try context.fetch(FetchDescriptor<HandLodging>()).first)
        lodging.hotel = "Tent"
        #expect(throws: DataStoreError.readOnly) { try context.save() }
        #expect(lodging._$backingData.isChanged(1))
        #expect(context.hasChanges)
        #expect(context.changedModelsArray.count == 1)
    }

    @Test func aFetchedModelIsObservedAndARollbackIsSeen() throws {
        let container = try container()
        let setUp = ModelContext(container)
        setUp.insert(HandLodging("Bryggen"))
        try setUp.save()
        let context = ModelContext(container)
        let lodging = try #require(try context.fetch(FetchDescriptor<HandLodging>()).first)
        let fired = Locked(0)
        withObservationTracking { _ = lodging.hotel } onChange: { fired.withLock { $0 += 1 } }
        lodging.hotel = "Tent"
        #expect(fired.withLock { $0 } == 1)
        withObservationTracking { _ = lodging.hotel } onChange: { fired.withLock { $0 += 1 } }
        context.rollback()
        #expect(fired.withLock { $0 } == 2, "rollback sets the values through the observed accessors")
        #expect(lodging.hotel == "Bryggen")
    }

    /// A context lets go of a model it forgets: its changes no longer reach that context.
    @Test func aForgottenModelStopsReporting() throws {
        let container = try container()
        let context = ModelContext(container)
        let lodging = HandLodging("Bryggen")
        context.insert(lodging)
        try context.save()
        #expect(lodging._$backingData.tracker != nil)
        context.delete(lodging)
        try context.save()
        #expect(lodging._$backingData.tracker == nil)
    }
}
