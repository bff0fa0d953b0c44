import Foundation
import JSONStore
import MemoryStore
import Observation
import DataStores
@testable import StoreProtocol
import StoreTestSupport
import Testing

enum Transport: String, Codable, Sendable {
    case train, plane, boat
}

/// A model with several String attributes (so names matter), an Int, an optional, an enum, a
/// to-many and a to-one relationship with inverses, unique and indexed attributes.
@Model final class ObservedTrip {
    #Unique<ObservedTrip>([\.name])
    #Index<ObservedTrip>([\.destination], [\.nights])
    var id = UUID()
    @Attribute(.preserveValueOnDeletion) var name: String
    @Attribute(.preserveValueOnDeletion) var destination: String
    var note: String?
    var nights: Int
    var transport: Transport
    @Relationship(deleteRule: .cascade, inverse: \ObservedStop.trip) var stops: [ObservedStop] = []
    @Relationship(deleteRule: .cascade, inverse: \ObservedLodging.trip) var lodging: ObservedLodging?

    init(name: String, destination: String, nights: Int, transport: Transport = .train) {
        self.name = name
        self.destination = destination
        self.nights = nights
        self.transport = transport
    }
}

@Model final class ObservedStop {
    var id = UUID()
    var place: String
    var trip: ObservedTrip?

    init(_ place: String) { self.place = place }
}

@Model final class ObservedLodging {
    var id = UUID()
    var hotel: String
    var trip: ObservedTrip?

    init(_ hotel: String) { self.hotel = hotel }
}

/// `@Model` models: their generated metadata names what the store keeps, on each backend, and
/// Observation sees their changes.
@Suite struct ObservableModelTests {
    enum Backend: String, CaseIterable {
        case memory, json
    }

    private func makeContainer(_ backend: Backend) throws -> ModelContainer {
        switch backend {
        case .memory:
            return try ModelContainer(for: ObservedTrip.self, configurations: MemoryStoreConfiguration())
        case .json:
            let url = try temporaryDirectory().appending(path: "trips.json")
            return try ModelContainer(for: ObservedTrip.self, configurations: JSONStoreConfiguration(url: url))
        }
    }

    /// Saves two trips, one with two stops and a lodging.
    private func saveTrips(in container: ModelContainer) throws -> ObservedTrip {
        let context = ModelContext(container)
        let norway = ObservedTrip(name: "Fjords", destination: "Norway", nights: 7, transport: .boat)
        norway.note = "pack boots"
        norway.stops = [ObservedStop("Bergen"), ObservedStop("Flåm")]
        norway.lodging = ObservedLodging("Hotel Bryggen")
        context.insert(norway)
        context.insert(ObservedTrip(name: "Arctic", destination: "Norway", nights: 3, transport: .plane))
        context.insert(ObservedTrip(name: "Alps", destination: "Austria", nights: 5))
        try context.save()
        return norway
    }

    @Test func theSchemaNamesEachAttributeAndRelationship() throws {
        let schema = Schema(ObservedTrip.self)
        try schema.validate()
        let trip = try #require(schema.entity(for: ObservedTrip.self))
        #expect(trip.attributeNames == ["id", "name", "destination", "note", "nights", "transport"])
        #expect(trip.relationships.map(\.description)
            == ["stops -> [ObservedStop] (inverse trip)", "lodging -> ObservedLodging? (inverse trip)"])
        #expect(trip.uniqueConstraints == [["name"]])
        #expect(trip.indices == [["destination"], ["nights"]])
        #expect(trip.preservedOnDeletion == ["name", "destination"])
        #expect(trip.attributes.map(\.valueType) == ["UUID", "String", "String", "String", "Int", "Transport"])
        #expect(trip.attributes.map(\.isOptional) == [false, false, false, true, false, false])
        #expect(schema.entity(for: ObservedStop.self)?.relationships.map(\.description) == ["trip -> ObservedTrip? (inverse stops)"])
        #expect(ObservedTrip.attributeName(of: \ObservedTrip.destination) == "destination")
    }

    /// What the context may observe: the user's own key paths of every attribute and relationship.
    @Test func theModelsKeyPathsAreTheUsersOwn() {
        let attributes = ModelAttributes.of(ObservedTrip.self)
        let names = ["id", "name", "destination", "note", "nights", "transport", "stops", "lodging"]
        let keyPaths = names.compactMap { attributes.keyPath(named: $0).map { $0 as AnyKeyPath } }
        let expected: [AnyKeyPath] = [\ObservedTrip.id, \ObservedTrip.name, \ObservedTrip.destination, \ObservedTrip.note,
                                      \ObservedTrip.nights, \ObservedTrip.transport, \ObservedTrip.stops, \ObservedTrip.lodging]
        #expect(keyPaths == expected)
    }

    @Test(arguments: Backend.allCases)
    func aFreshContextFetchesByANamedAttributeSorted(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        _ = try saveTrips(in: container)
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<ObservedTrip>(
            predicate: #Predicate { $0.destination == "Norway" }, sortBy: [SortDescriptor(\.name)])
        #expect(FetchQuery(descriptor).isFullyTranslated, "the store evaluates it on stored values, by stored names")
        let trips = try context.fetch(descriptor)
        #expect(trips.map(\.name) == ["Arctic", "Fjords"])
        #expect(trips.map(\.nights) == [3, 7])
        #expect(trips.map(\.transport) == [.plane, .boat])
        #expect(trips.map(\.note) == [nil, "pack boots"])
        let fjords = try #require(trips.last)
        #expect(fjords.stops.map(\.place) == ["Bergen", "Flåm"])
        #expect(fjords.stops.allSatisfy { $0.trip === fjords })
        #expect(fjords.lodging?.hotel == "Hotel Bryggen")
        #expect(fjords.lodging?.trip === fjords)
        let long = try context.fetch(FetchDescriptor<ObservedTrip>(
            predicate: #Predicate { $0.nights >= 5 }, sortBy: [SortDescriptor(\.nights, order: .reverse)]))
        #expect(long.map(\.name) == ["Fjords", "Alps"])
        #expect(try context.fetchCount(FetchDescriptor<ObservedTrip>(predicate: #Predicate { $0.note == nil })) == 2)
    }

    /// The JSON file holds the trips under their names: a container opened on it afresh reads them.
    @Test func aReopenedJSONStoreReadsTheTripsBack() throws {
        let url = try temporaryDirectory().appending(path: "trips.json")
        _ = try saveTrips(in: try ModelContainer(for: ObservedTrip.self, configurations: JSONStoreConfiguration(url: url)))
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("\"destination\"") && !text.contains("_destination"))
        let reopened = try ModelContainer(for: ObservedTrip.self, configurations: JSONStoreConfiguration(url: url))
        let trips = try ModelContext(reopened).fetch(FetchDescriptor<ObservedTrip>(
            predicate: #Predicate { $0.nights > 4 }, sortBy: [SortDescriptor(\.destination), SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Alps", "Fjords"])
        #expect(trips.last?.stops.map(\.place) == ["Bergen", "Flåm"])
    }

    /// Inserting a trip whose name is stored updates the stored trip.
    @Test(arguments: Backend.allCases)
    func aUniqueCollisionBecomesAnUpdate(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        _ = try saveTrips(in: container)
        let context = ModelContext(container)
        context.insert(ObservedTrip(name: "Alps", destination: "Switzerland", nights: 9))
        try context.save()
        let alps = try ModelContext(container).fetch(FetchDescriptor<ObservedTrip>(predicate: #Predicate { $0.name == "Alps" }))
        #expect(alps.map(\.destination) == ["Switzerland"])
        #expect(alps.map(\.nights) == [9])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ObservedTrip>()) == 3)
    }

    @Test(arguments: Backend.allCases)
    func rollbackRestoresTheSavedValues(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        let context = ModelContext(container)
        let trip = ObservedTrip(name: "Fjords", destination: "Norway", nights: 7)
        let bergen = ObservedStop("Bergen")
        trip.stops = [bergen]
        context.insert(trip)
        try context.save()
        trip.name = "Changed"
        trip.destination = "Elsewhere"
        trip.note = "temporary"
        trip.nights = 1
        trip.transport = .plane
        trip.stops = []
        trip.lodging = ObservedLodging("Tent")
        #expect(context.hasChanges)
        context.rollback()
        #expect(trip.name == "Fjords" && trip.destination == "Norway" && trip.note == nil)
        #expect(trip.nights == 7 && trip.transport == .train)
        #expect(trip.stops.count == 1 && trip.stops.first === bergen && bergen.trip === trip)
        #expect(trip.lodging == nil)
        #expect(!context.hasChanges)
    }

    /// A history update names the user's own key path; a tombstone reads by key path.
    @Test(arguments: Backend.allCases)
    func historyNamesTheUsersKeyPaths(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        let context = ModelContext(container)
        let trip = ObservedTrip(name: "Fjords", destination: "Norway", nights: 7)
        context.insert(trip)
        try context.save()
        let start = try container.currentHistoryToken()
        trip.name = "Fjords and glaciers"
        try context.save()
        context.delete(trip)
        try context.save()
        let changes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: start)).flatMap(\.changes)
        guard case .update(let update as DefaultHistoryUpdate<ObservedTrip>) = changes.first else {
            Issue.record("expected an update first, got \(changes)")
            return
        }
        #expect(update.updatedAttributes.count == 1)
        #expect(update.updatedAttributes.first == \ObservedTrip.name)
        #expect(!update.updated(\ObservedTrip.destination))
        guard case .delete(let delete as DefaultHistoryDelete<ObservedTrip>) = changes.last else {
            Issue.record("expected a delete last, got \(changes)")
            return
        }
        #expect(delete.tombstone[\ObservedTrip.name] == "Fjords and glaciers")
        #expect(delete.tombstone[\ObservedTrip.destination] == "Norway")
    }

    /// `withObservationTracking` fires on a change of an attribute read, through a set and
    /// through an in-place change, and on a relationship's; not on an attribute not read.
    @Test func observationFiresOnTheAttributesAndRelationshipsRead() throws {
        let trip = ObservedTrip(name: "Fjords", destination: "Norway", nights: 7)
        /// How often the observer of what `read` reads is called back.
        func observe(_ read: @escaping () -> Void) -> Locked<Int> {
            let fired = Locked(0)
            withObservationTracking(read, onChange: { fired.withLock { $0 += 1 } })
            return fired
        }
        let name = observe { _ = trip.name }
        trip.destination = "Sweden"
        #expect(name.withLock { $0 } == 0, "a change of an attribute not read")
        trip.name = "Lakes"
        #expect(name.withLock { $0 } == 1)
        let nights = observe { _ = trip.nights }
        trip.nights += 1
        #expect(nights.withLock { $0 } == 1, "an in-place change")
        let stops = observe { _ = trip.stops }
        trip.stops.append(ObservedStop("Bergen"))
        #expect(stops.withLock { $0 } == 1, "a to-many's append")
        let lodging = observe { _ = trip.lodging }
        trip.lodging = ObservedLodging("Hotel Bryggen")
        #expect(lodging.withLock { $0 } == 1, "a to-one's set")
    }

    /// A model held by a context is observed as well: a fetched model's change fires, and the
    /// context sees the change without comparing snapshots.
    @Test(arguments: Backend.allCases)
    func aFetchedModelIsObservedAndItsChangeSeen(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        _ = try saveTrips(in: container)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<ObservedTrip>(predicate: #Predicate { $0.name == "Alps" })).first)
        #expect(!context.hasChanges)
        let fired = Locked(0)
        withObservationTracking({ _ = trip.nights }, onChange: { fired.withLock { $0 += 1 } })
        trip.nights = 6
        #expect(fired.withLock { $0 } == 1)
        #expect(context.hasChanges && context.changedModelsArray.map(\.persistentModelID) == [trip.persistentModelID])
    }
}
