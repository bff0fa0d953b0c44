import DataStores
import Foundation
import JSONStore
import StoreTestSupport
import Testing

/// An optional to-many relationship (`[Stop]?`, as CloudKit-ready SwiftData models declare
/// `var stops: [Stop]? = []`) is a to-many relationship everywhere: stored as the members' keys,
/// read back, `nil` read as empty, cascaded and kept in step with its inverse (found by an
/// adversary: it did not compile, with or without `@Relationship`).
@Model final class CloudTrip {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \CloudStop.trip) var stops: [CloudStop]? = []
    var tags: [CloudTag]?
    init(name: String) { self.name = name }
}

@Model final class CloudStop {
    var place: String = ""
    var trip: CloudTrip?
    var nearby: [CloudStop]? = []   // inferred, with an initial value
    init(place: String) { self.place = place }
}

@Model final class CloudTag {
    var label: String = ""
    @Relationship(inverse: \CloudTrip.tags) var trips: [CloudTrip]? = []
    init(label: String) { self.label = label }
}

@Suite struct MacroModelOptionalToManyTests {
    @Test func anOptionalToManyIsSavedReadCascadedAndKeptInStep() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let open = { try ModelContainer(for: CloudTrip.self, CloudStop.self, CloudTag.self, configurations: JSONStoreConfiguration(url: url)) }
        let schemaTrip = try #require(try open().schema.entity(named: "CloudTrip"))
        #expect(schemaTrip.relationships.map(\.name).sorted() == ["stops", "tags"])
        #expect(schemaTrip.relationships.allSatisfy { $0.isToMany })

        let context = ModelContext(try open())
        let trip = CloudTrip(name: "Norway")
        let tag = CloudTag(label: "fjords")
        context.insert(trip)
        context.insert(tag)
        // The inverse of a to-one sets a to-many that was nil.
        trip.stops = nil
        let bergen = CloudStop(place: "Bergen"), flam = CloudStop(place: "Flåm")
        bergen.trip = trip
        flam.trip = trip
        context.insert(bergen)
        context.insert(flam)
        tag.trips = [trip]
        try context.save()
        #expect(trip.stops?.map(\.place).sorted() == ["Bergen", "Flåm"], "the inverse filled the nil to-many")
        #expect(trip.tags?.map(\.label) == ["fjords"], "the many-to-many inverse is set")

        var reader = ModelContext(try open())
        var read = try #require(try reader.fetch(FetchDescriptor<CloudTrip>()).first)
        #expect(read.stops?.map(\.place).sorted() == ["Bergen", "Flåm"])
        #expect(try reader.fetchCount(FetchDescriptor<CloudStop>()) == 2)
        #expect(read.stops?.allSatisfy { $0.trip === read } == true)
        #expect(read.tags?.map(\.label) == ["fjords"])
        #expect(try reader.fetch(FetchDescriptor<CloudTag>()).first?.trips?.map(\.name) == ["Norway"])

        // nil is saved as empty and reads back as empty.
        read.tags = nil
        try reader.save()
        reader = ModelContext(try open())
        read = try #require(try reader.fetch(FetchDescriptor<CloudTrip>()).first)
        #expect(read.tags?.isEmpty ?? true)
        #expect(try reader.fetch(FetchDescriptor<CloudTag>()).first?.trips?.isEmpty ?? true, "the inverse lost it too")

        // Deleting the trip deletes its stops (cascade) and keeps the tag.
        reader.delete(read)
        try reader.save()
        let after = ModelContext(try open())
        #expect(try after.fetchCount(FetchDescriptor<CloudTrip>()) == 0)
        #expect(try after.fetchCount(FetchDescriptor<CloudStop>()) == 0, "the stops were deleted with their trip")
        #expect(try after.fetchCount(FetchDescriptor<CloudTag>()) == 1)
    }

    @Test func anOptionalToManyEncodesAsKeysAndNilAsEmpty() throws {
        let trip = CloudTrip(name: "a")
        let stop = CloudStop(place: "b")
        trip.stops = [stop]
        #expect(try trip.storedValues()["stops"] == .array([stop.persistentModelID.primaryKey]))
        trip.stops = nil
        #expect(try trip.storedValues()["stops"] == .array([]))
    }
}
