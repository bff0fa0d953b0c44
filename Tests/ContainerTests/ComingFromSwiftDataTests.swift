import DataStores
import MemoryStore
import Testing

// The samples of the DataStores article "Coming from SwiftData" (DataStores.docc/
// ComingFromSwiftData.md), each held here as the article writes it (`Tools/docs/check-samples.py`
// checks it line for line) and run: a renamed API breaks this build, not the reader's port.

/// The article's models, in a namespace of their own (other tests have a `Trip`).
enum ComingFromSwiftData {
@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = []

    init(name: String, startDate: Date) {
        self.name = name
        self.startDate = startDate
    }
}

@Model
final class BucketListItem {
    var title: String
    var trip: Trip?

    init(title: String) {
        self.title = title
    }
}
}

@Suite struct ComingFromSwiftDataTests {
    typealias Trip = ComingFromSwiftData.Trip
    typealias BucketListItem = ComingFromSwiftData.BucketListItem

    /// The article's models as SwiftData declares them: the unique constraint upserts, the
    /// cascade deletes the bucket list, the inverse is kept from the item's side.
    @Test func theArticlesModelsBehaveAsSwiftDatasDo() throws {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        #expect(container.schema.entity(for: BucketListItem.self) != nil, "the related model is in the schema")
        let context = ModelContext(container)
        let day = Date(timeIntervalSince1970: 1_780_000_000)
        let trip = Trip(name: "Iceland", startDate: day)
        let item = BucketListItem(title: "Geysir")
        context.insert(trip)
        item.trip = trip
        try context.save()
        #expect(trip.bucketList.map(\.title) == ["Geysir"])

        context.delete(trip)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 0, "the cascade deleted the item")

        context.insert(Trip(name: "Japan", startDate: day))
        try context.save()
        context.insert(Trip(name: "Japan", startDate: day))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1, "the same name and date update the stored trip")
    }
}
