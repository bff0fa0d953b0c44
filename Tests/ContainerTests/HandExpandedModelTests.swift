import Foundation
import JSONStore
import MemoryStore
import Observation
@testable import StoreProtocol
import StoreTestSupport
import Testing

/// The runtime side of `@Model`, driven by the contract's expansion written by hand
/// (HandExpandedModels.swift), on the memory and JSON stores.
@Suite struct HandExpandedModelTests {
    enum Backend: String, CaseIterable {
        case memory, json
    }

    private func makeContainer(_ backend: Backend, url: URL? = nil) throws -> ModelContainer {
        switch backend {
        case .memory:
            return try ModelContainer(for: HandTrip.self, configurations: MemoryStoreConfiguration())
        case .json:
            let url = try url ?? temporaryDirectory().appending(path: "trips.json")
            return try ModelContainer(for: HandTrip.self, configurations: JSONStoreConfiguration(url: url))
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_700_000_000.25)

    /// Saves a trip with two items and a lodging.
    @discardableResult
    private func saveTrip(in container: ModelContainer) throws -> HandTrip {
        let context = ModelContext(container)
        let trip = HandTrip(name: "Fjords")
        trip.startDate = Self.start
        trip.items = [HandItem("boots"), HandItem("map")]
        trip.lodging = HandLodging("Bryggen")
        trip.scratch = 42
        context.insert(trip)
        try context.save()
        return trip
    }

    @Test func theGeneratedMetadataMakesTheEntity() throws {
        let schema = Schema(HandTrip.self)
        try schema.validate()
        let trip = try #require(schema.entity(for: HandTrip.self))
        #expect(trip.attributeNames == ["id", "name", "startDate"])
        #expect(trip.relationships.map(\.description) == ["items -> [HandItem] (inverse trip)", "lodging -> HandLodging?"])
        #expect(trip.relationships.map(\.deleteRule) == [.cascade, .nullify])
        #expect(trip.uniqueConstraints == [["name", "startDate"]])
        #expect(trip.indices == [["name"], ["startDate"]])
        #expect(trip.preservedOnDeletion == ["name"])
        #expect(trip.attributes.map(\.originalName) == [nil, "title", nil])
        #expect(trip.attributes[2].defaultValue != nil, "the property's initial value is the migration default")
        #expect(schema.entity(for: HandItem.self)?.relationships.map(\.description) == ["trip -> HandTrip? (inverse items)"])
        #expect(HandTrip.attributeName(of: \HandTrip.startDate) == "startDate")
    }

    /// `@Attribute` options become the metadata's lists: `.unique` a one-attribute constraint,
    /// `.ephemeral` no attribute; the Linux no-ops are accepted.
    @Test func attributeOptionsBecomeTheMetadataLists() {
        let metadata = SchemaMetadata<HandLodging>(properties: [
            .attribute("id", \HandLodging.id),
            .attribute("hotel", \HandLodging.hotel, options: [.unique, .externalStorage, .spotlight, .allowsCloudEncryption,
                                                               .transformable(by: "Reverser")]),
            .attribute("nights", \HandLodging.nights, options: [.ephemeral]),
        ])
        #expect(metadata.attributes.map { $0 as AnyKeyPath } == [\HandLodging.id, \HandLodging.hotel])
        #expect(metadata.unique.map { $0.map { $0 as AnyKeyPath } } == [[\HandLodging.hotel]])
        #expect(metadata.properties.map(\.name) == ["id", "hotel", "nights"])
    }

    @Test func storedValuesAreWhatACodableModelStores() throws {
        let trip = HandTrip(name: "Fjords")
        trip.startDate = Self.start
        let item = HandItem("boots")
        trip.items = [item]
        let values = try trip.storedValues()
        #expect(values == ["id": .uuid(trip.id), "name": .string("Fjords"), "startDate": .date(Self.start),
                           "items": .array([.uuid(item.id)])], "a nil to-one is left out, as encodeIfPresent leaves it")
        let lodging = HandLodging("Bryggen")
        #expect(try lodging.storedValues() == ["id": .uuid(lodging.id), "hotel": .string("Bryggen")])
        lodging.nights = 3
        #expect(try lodging.storedValues()["nights"] == .int(3))
    }

    @Test func decodingNamesTheAttributeAndEntity() throws {
        let id = UUID()
        #expect(throws: DataStoreError.undecodableSnapshot) {
            _ = try HandLodging(storedValues: ["id": .uuid(id), "hotel": .int(3)])
        }
        do {
            _ = try HandLodging(storedValues: ["id": .uuid(id), "hotel": .string("x"), "nights": .string("three")])
            Issue.record("a string decoded as Int?")
        } catch let error as DataStoreError {
            #expect(error.message.contains("HandLodging.nights") && error.message.contains("Int"), "\(error.message)")
        }
        do {
            _ = try HandLodging(storedValues: ["id": .uuid(id)])
            Issue.record("a missing non-optional attribute decoded")
        } catch let error as DataStoreError {
            #expect(error.message.contains("HandLodging.hotel"), "\(error.message)")
        }
        let lodging = try HandLodging(storedValues: ["id": .uuid(id), "hotel": .string("Bryggen"), "nights": .null])
        #expect(lodging.id == id && lodging.hotel == "Bryggen" && lodging.nights == nil)
        #expect(!lodging._$backingData.hasChanges, "decoding sets storage, not the observed accessors")
    }

    @Test func assigningStoredValuesIsAllOrNothing() throws {
        let lodging = HandLodging("Bryggen")
        lodging.nights = 2
        #expect(throws: DataStoreError.undecodableSnapshot) {
            try lodging.assignStoredValues(["id": .uuid(lodging.id), "hotel": .string("Tent"), "nights": .bool(true)])
        }
        #expect(lodging.hotel == "Bryggen" && lodging.nights == 2)
        try lodging.assignStoredValues(["id": .uuid(lodging.id), "hotel": .string("Tent")])
        #expect(lodging.hotel == "Tent" && lodging.nights == nil)
    }

    @Test(arguments: Backend.allCases)
    func aSavedTripReadsBackInAFreshContext(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        let saved = try saveTrip(in: container)
        let trips = try ModelContext(container).fetch(FetchDescriptor<HandTrip>())
        let trip = try #require(trips.first)
        #expect(trips.count == 1 && trip !== saved)
        #expect(trip.id == saved.id && trip.name == "Fjords" && trip.startDate == Self.start)
        #expect(trip.scratch == 0, "a @Transient property keeps its initial value")
        #expect(Set(trip.items.map(\.title)) == ["boots", "map"])
        #expect(trip.items.allSatisfy { $0.trip === trip })
        #expect(trip.lodging?.hotel == "Bryggen")
    }

    @Test func aReopenedJSONStoreReadsTheTripBack() throws {
        let url = try temporaryDirectory().appending(path: "trips.json")
        let saved = try saveTrip(in: try makeContainer(.json, url: url))
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("\"startDate\"") && !text.contains("_startDate") && !text.contains("scratch"))
        let reopened = try makeContainer(.json, url: url)
        let trip = try #require(try ModelContext(reopened).fetch(FetchDescriptor<HandTrip>(
            predicate: #Predicate { $0.name == "Fjords" })).first)
        #expect(trip.id == saved.id && trip.startDate == Self.start && trip.items.count == 2)
    }

    @Test(arguments: Backend.allCases)
    func anUpdateIsSavedAndReadBack(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        try saveTrip(in: container)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<HandTrip>()).first)
        trip.name.append(" and glaciers")
        trip.items.removeAll { $0.title == "map" }
        trip.lodging?.nights = 4
        #expect(context.hasChanges)
        try context.save()
        let again = try #require(try ModelContext(container).fetch(FetchDescriptor<HandTrip>()).first)
        #expect(again.name == "Fjords and glaciers")
        #expect(again.items.map(\.title) == ["boots"])
        #expect(again.lodging?.nights == 4)
    }

    @Test(arguments: Backend.allCases)
    func rollbackRestoresTheSavedValues(_ backend: Backend) throws {
        let container = try makeContainer(backend)
        let context = ModelContext(container)
        let trip = HandTrip(name: "Fjords")
        context.insert(trip)
        try context.save()
        trip.name = "Changed"
        trip.lodging = HandLodging("Tent")
        context.rollback()
        #expect(trip.name == "Fjords" && trip.lodging == nil)
        #expect(!context.hasChanges)
    }

    @Test func observationFiresOnAttributeAndRelationshipSets() {
        let trip = HandTrip(name: "Fjords")
        func fires(_ read: @escaping () -> Void, when change: () -> Void) -> Bool {
            let fired = Locked(false)
            withObservationTracking(read) { fired.withLock { $0 = true } }
            change()
            return fired.withLock { $0 }
        }
        #expect(fires({ _ = trip.name }, when: { trip.name = "Alps" }))
        #expect(fires({ _ = trip.name }, when: { trip.name += "!" }), "an in-place modification is observed")
        #expect(fires({ _ = trip.items }, when: { trip.items.append(HandItem("rope")) }))
        #expect(fires({ _ = trip.lodging }, when: { trip.lodging = HandLodging("Hut") }))
        #expect(!fires({ _ = trip.name }, when: { trip.startDate = Self.start }), "only what was read is observed")
        #expect(!fires({ _ = trip.scratch }, when: { trip.scratch = 1 }), "a @Transient property is not observed")
    }

    @Test func eachSetMarksItsPropertyChanged() {
        let trip = HandTrip(name: "Fjords")
        let backing = trip._$backingData
        backing.settle()
        #expect(!backing.hasChanges)
        trip.items.append(HandItem("rope"))
        trip.name = "Alps"
        #expect((0..<6).filter(backing.isChanged) == [1, 3])
        trip.scratch = 9
        #expect((0..<6).filter(backing.isChanged) == [1, 3])
    }

    @Test func aBitSetHoldsIndicesBeyondOneWord() {
        var set = PropertyBitSet()
        for index in [0, 63, 64, 130] { set.insert(index) }
        #expect(set.members == [0, 63, 64, 130])
        #expect(set.contains(130) && !set.contains(129) && !set.contains(200) && !set.contains(-1))
        set.removeAll()
        #expect(set.isEmpty)
    }
}
