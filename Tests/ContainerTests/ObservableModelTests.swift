import Foundation
import JSONStore
import MemoryStore
import Observation
@testable import StoreProtocol
import StoreTestSupport
import Testing

enum Transport: String, Codable, Sendable {
    case train, plane, boat
}

/// An @Observable model with several String attributes (so names matter), an Int, an optional,
/// an enum, a to-many and a to-one relationship with inverses, unique and indexed attributes.
@Observable final class ObservedTrip: PersistentModel, Codable {
    var id = UUID()
    var name: String
    var destination: String
    var note: String?
    var nights: Int
    var transport: Transport
    var stops: [ObservedStop] = []
    var lodging: ObservedLodging?

    init(name: String, destination: String, nights: Int, transport: Transport = .train) {
        self.name = name
        self.destination = destination
        self.nights = nights
        self.transport = transport
    }

    enum CodingKeys: String, CodingKey {
        case _id = "id"
        case _name = "name"
        case _destination = "destination"
        case _note = "note"
        case _nights = "nights"
        case _transport = "transport"
        case _stops = "stops"
        case _lodging = "lodging"
    }

    static let schemaMetadata = SchemaMetadata<ObservedTrip>(
        attributes: [
            .attribute("id", \.id), .attribute("name", \.name), .attribute("destination", \.destination),
            .attribute("note", \.note), .attribute("nights", \.nights), .attribute("transport", \.transport),
        ],
        relationships: [
            .relationship("stops", \.stops, deleteRule: .cascade, inverse: \ObservedStop.trip),
            .relationship("lodging", \.lodging, deleteRule: .cascade, inverse: \ObservedLodging.trip),
        ],
        unique: [[\.name]],
        indexed: [[\.destination], [\.nights]],
        preservedOnDeletion: [\.name, \.destination])
}

@Observable final class ObservedStop: PersistentModel, Codable {
    var id = UUID()
    var place: String
    var trip: ObservedTrip?

    init(_ place: String) { self.place = place }

    enum CodingKeys: String, CodingKey {
        case _id = "id"
        case _place = "place"
        case _trip = "trip"
    }

    static let schemaMetadata = SchemaMetadata<ObservedStop>(
        attributes: [.attribute("id", \.id), .attribute("place", \.place)],
        relationships: [.relationship("trip", \.trip)])
}

@Observable final class ObservedLodging: PersistentModel, Codable {
    var id = UUID()
    var hotel: String
    var trip: ObservedTrip?

    init(_ hotel: String) { self.hotel = hotel }

    enum CodingKeys: String, CodingKey {
        case _id = "id"
        case _hotel = "hotel"
        case _trip = "trip"
    }

    static let schemaMetadata = SchemaMetadata<ObservedLodging>(
        attributes: [.attribute("id", \.id), .attribute("hotel", \.hotel)],
        relationships: [.relationship("trip", \.trip)])
}

/// @Observable models, named by their metadata, work as plain models do, on each backend.
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
        let keyPaths = ModelAttributes.of(ObservedTrip.self).keyPaths.map { $0 as AnyKeyPath }
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

    /// Two attributes of one type with their names swapped cannot be told apart: the store keeps
    /// what Codable encodes (by CodingKeys), while queries, unique constraints and history go by
    /// the metadata's names, so a predicate on one attribute compares the other's value.
    @Observable final class Swapped: PersistentModel, Codable {
        var id = UUID()
        var first = ""
        var second = ""
        enum CodingKeys: String, CodingKey {
            case _id = "id"
            case _first = "first"
            case _second = "second"
        }
        static let schemaMetadata = SchemaMetadata<Swapped>(
            attributes: [.attribute("id", \.id), .attribute("second", \.first), .attribute("first", \.second)])
    }

    @Test func swappedNamesOfOneTypeAreAcceptedAndQueryTheOtherAttribute() throws {
        let container = try ModelContainer(for: Swapped.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let model = Swapped()
        model.first = "a"
        model.second = "b"
        context.insert(model)
        try context.save()
        let byFirst = try ModelContext(container).fetch(FetchDescriptor<Swapped>(predicate: #Predicate { $0.first == "b" }))
        #expect(byFirst.map(\.first) == ["a"], "the hazard: \\.first is named \"second\"")
    }
}
