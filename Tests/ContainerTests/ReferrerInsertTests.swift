import Foundation
import MemoryStore
@testable import StoreProtocol
import Testing

/// Issue 28's remaining defect, for `@Model` models: a new model linked only through its own
/// to-one (`item.trip = trip; context.insert(trip)`) is saved with the model it refers to, as
/// SwiftData inserts a model's whole graph. The to-one's setter tells the related model's backing.
@Suite struct ReferrerInsertTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: HandTrip.self, configurations: MemoryStoreConfiguration())
    }

    @Test func aNewModelReachingAnInsertedOneThroughItsToOneIsSaved() throws {
        let container = try container()
        let context = ModelContext(container)
        let trip = HandTrip(name: "Fjords")
        let item = HandItem("boots")
        item.trip = trip
        context.insert(trip)
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<HandItem>())
        #expect(fetched.map(\.title) == ["boots"])
        #expect(fetched.first?.trip?.name == "Fjords")
        #expect(trip.items.map(\.title) == ["boots"], "the inverse is kept in step")
    }

    /// A relationship with no inverse, to a model with no relationships of its own.
    @Test func aNewModelReachingAnInsertedOneWithoutAnInverseIsSaved() throws {
        let container = try container()
        let context = ModelContext(container)
        let lodging = HandLodging("Bryggen")
        let trip = HandTrip(name: "Fjords")
        trip.lodging = lodging
        context.insert(lodging)
        try context.save()
        let trips = try ModelContext(container).fetch(FetchDescriptor<HandTrip>())
        #expect(trips.map(\.name) == ["Fjords"])
        #expect(trips.first?.lodging?.hotel == "Bryggen")
    }

    /// A model whose to-one was set to the inserted model and then to another is not inserted.
    @Test func aModelThatNoLongerRefersIsNotInserted() throws {
        let container = try container()
        let context = ModelContext(container)
        let fjords = HandTrip(name: "Fjords")
        let item = HandItem("boots")
        item.trip = fjords
        item.trip = HandTrip(name: "Alps")
        context.insert(fjords)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<HandItem>()) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<HandTrip>()) == 1)
    }
}
