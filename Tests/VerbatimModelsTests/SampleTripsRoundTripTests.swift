import DataStores
import Foundation
import Testing

/// What the round trip needs of the talks' Trip variants that share one shape (name,
/// destination, dates, a bucket list and an accommodation), so that one test runs them all.
protocol TalkTrip: PersistentModel {
    associatedtype Item: PersistentModel
    associatedtype Lodging: PersistentModel
    var name: String { get }
    var destination: String { get }
    var startDate: Date { get }
    var endDate: Date { get }
    var bucketList: [Item] { get set }
    var livingAccommodation: Lodging? { get set }
    static func item(_ title: String) -> Item
    static func title(of item: Item) -> String
    static func lodging(_ placeName: String) -> Lodging
    static func placeName(of lodging: Lodging) -> String
}

extension TalkTrip {
    /// A trip made as the stores make one: the talk's Trip declares no initializer.
    static func make(name: String, destination: String) throws -> Self {
        try Self(storedValues: ["id": .uuid(UUID()), "name": .string(name), "destination": .string(destination),
                                "startDate": .date(Sample.startDate), "endDate": .date(Sample.endDate)])
    }
}

extension Plain.Trip: TalkTrip {
    static func item(_ title: String) -> Plain.BucketListItem {
        Plain.BucketListItem(title: title, details: "details of \(title)", hasReservation: true, isInPlan: false)
    }
    static func title(of item: Plain.BucketListItem) -> String {
        "\(item.title)|\(item.details)|\(item.hasReservation)|\(item.isInPlan)"
    }
    static func lodging(_ placeName: String) -> Plain.LivingAccommodation {
        Plain.LivingAccommodation(address: "1 Infinite Loop", placeName: placeName)
    }
    static func placeName(of lodging: Plain.LivingAccommodation) -> String { "\(lodging.placeName)|\(lodging.address)" }
}

extension Unique.Trip: TalkTrip {
    static func item(_ title: String) -> Unique.BucketListItem { .init(title: title) }
    static func title(of item: Unique.BucketListItem) -> String { item.title }
    static func lodging(_ placeName: String) -> Unique.LivingAccommodation { .init(placeName: placeName) }
    static func placeName(of lodging: Unique.LivingAccommodation) -> String { lodging.placeName }
}

extension Preserved.Trip: TalkTrip {
    static func item(_ title: String) -> Preserved.BucketListItem { .init(title: title) }
    static func title(of item: Preserved.BucketListItem) -> String { item.title }
    static func lodging(_ placeName: String) -> Preserved.LivingAccommodation { .init(placeName: placeName) }
    static func placeName(of lodging: Preserved.LivingAccommodation) -> String { lodging.placeName }
}

extension Indexed.Trip: TalkTrip {
    static func item(_ title: String) -> Indexed.BucketListItem { .init(title: title) }
    static func title(of item: Indexed.BucketListItem) -> String { item.title }
    static func lodging(_ placeName: String) -> Indexed.LivingAccommodation { .init(placeName: placeName) }
    static func placeName(of lodging: Indexed.LivingAccommodation) -> String { lodging.placeName }
}

/// The talks' model declarations, compiled as the talks show them, saved and read back from a
/// reopened store: every attribute, both relationships and their inverses.
@Suite struct SampleTripsRoundTripTests {
    static var variants: [any TalkTrip.Type] { [Plain.Trip.self, Unique.Trip.self, Preserved.Trip.self, Indexed.Trip.self] }

    @Test(arguments: StoreKind.allCases)
    func everyVariantRoundTrips(on kind: StoreKind) throws {
        for variant in Self.variants {
            try roundTrip(variant, on: kind)
        }
    }

    func roundTrip<T: TalkTrip>(_ type: T.Type, on kind: StoreKind) throws {
        let open = try kind.store(for: type)
        let context = ModelContext(try open())
        let trip = try T.make(name: "Kona", destination: "Hawaii")
        trip.bucketList = [T.item("Snorkel"), T.item("Hike")]
        trip.livingAccommodation = T.lodging("Beach hut")
        context.insert(trip)
        try context.save()

        let read = try ModelContext(try open()).fetch(FetchDescriptor<T>())
        #expect(read.count == 1, "\(type)")
        let stored = try #require(read.first)
        #expect(stored !== trip)
        #expect(stored.persistentModelID == trip.persistentModelID, "\(type)")
        #expect(stored.name == "Kona" && stored.destination == "Hawaii", "\(type)")
        #expect(stored.startDate == Sample.startDate && stored.endDate == Sample.endDate, "\(type)")
        #expect(Set(stored.bucketList.map(T.title(of:))) == Set(trip.bucketList.map(T.title(of:))), "\(type)")
        #expect(stored.livingAccommodation.map(T.placeName(of:)) == trip.livingAccommodation.map(T.placeName(of:)), "\(type)")
    }

    /// The cascade variant: optional attributes, and deleting the trip deletes what it holds.
    @Test(arguments: StoreKind.allCases)
    func theCascadingTripRoundTripsAndCascades(on kind: StoreKind) throws {
        let open = try kind.store(for: Cascade.Trip.self)
        let context = ModelContext(try open())
        let trip = try Cascade.Trip(storedValues: ["id": .uuid(UUID())])
        trip.name = "Kona"
        trip.start_date = Sample.startDate
        trip.bucketListItem = [Cascade.BucketListItem(title: "Snorkel")]
        trip.livingAccommodation = Cascade.LivingAccommodation(placeName: "Beach hut")
        context.insert(trip)
        try context.save()

        let reopened = ModelContext(try open())
        let stored = try #require(try reopened.fetch(FetchDescriptor<Cascade.Trip>()).first)
        #expect(stored.name == "Kona" && stored.destination == nil)
        #expect(stored.start_date == Sample.startDate && stored.end_date == nil)
        #expect(stored.bucketListItem.map(\.title) == ["Snorkel"])
        #expect(stored.livingAccommodation?.placeName == "Beach hut")

        reopened.delete(stored)
        try reopened.save()
        let after = ModelContext(try open())
        #expect(try after.fetch(FetchDescriptor<Cascade.BucketListItem>()).isEmpty)
        #expect(try after.fetch(FetchDescriptor<Cascade.LivingAccommodation>()).isEmpty)
    }

    /// The flash-card app's Card, whose initializer defaults `creationDate` to `.now`.
    @Test(arguments: StoreKind.allCases)
    func theFlashCardRoundTrips(on kind: StoreKind) throws {
        let open = try kind.store(for: Card.self)
        let context = ModelContext(try open())
        let before = Date.now
        let card = Card(front: "Telephone", back: "Bell, 1876")
        let dated = Card(front: "Light bulb", back: "Edison, 1879", creationDate: Sample.startDate)
        #expect(card.creationDate >= before)
        context.insert(card)
        context.insert(dated)
        try context.save()

        let stored = try ModelContext(try open()).fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)]))
        #expect(stored.map(\.front) == ["Light bulb", "Telephone"])
        #expect(stored.map(\.back) == ["Edison, 1879", "Bell, 1876"])
        #expect(stored.map(\.creationDate) == [Sample.startDate, card.creationDate])
        #expect(stored.map(\.persistentModelID) == [dated.persistentModelID, card.persistentModelID])
    }
}
