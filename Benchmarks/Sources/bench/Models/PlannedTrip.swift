import DataStores
import GRDB

/// A trip with the talk's relationships, as a model of ours: a bucket list (to-many, cascade,
/// inverse `PlannedItem.trip`). Named apart from ``Trip``, which the other rows keep without
/// relationships.
@Model final class PlannedTrip {
    var id: UUID
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(deleteRule: .cascade, inverse: \PlannedItem.trip) var bucketList: [PlannedItem] = []

    init(_ record: PlannedTripRecord) {
        id = record.id
        name = record.name
        destination = record.destination
        startDate = record.startDate
        endDate = record.endDate
    }
}

/// One bucket-list item of a ``PlannedTrip``, as the talk's `BucketListItem`.
@Model final class PlannedItem {
    var id: UUID
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool
    var trip: PlannedTrip?

    init(_ record: PlannedItemRecord) {
        id = record.id
        title = record.title
        details = record.details
        hasReservation = record.hasReservation
        isInPlan = record.isInPlan
    }
}

/// The peer's trip row: table `plannedTrip`, its items through `bucketList`.
struct PlannedTripRecord: Codable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "plannedTrip"
    /// The trip's items, by the foreign key `plannedItem.tripId`.
    static let bucketList = hasMany(PlannedItemRecord.self, using: ForeignKey(["tripId"])).forKey("bucketList")

    var id: UUID
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date

    /// The `number`th trip of a data set: ids are random, the rest follows from `number`.
    static func make(_ number: Int) -> PlannedTripRecord {
        let start = TripRecord.epoch.addingTimeInterval(86_400 * Double(number % 365))
        return PlannedTripRecord(id: UUID(), name: "Planned trip \(number)", destination: ["Lisbon", "Kyoto", "Tromsø"][number % 3],
                                 startDate: start, endDate: start.addingTimeInterval(86_400 * Double(2 + number % 10)))
    }
}

/// The peer's item row: table `plannedItem`, with `tripId` referencing `plannedTrip.id`.
struct PlannedItemRecord: Codable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "plannedItem"

    var id: UUID
    var tripId: UUID
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool

    /// The `number`th item of the trip `tripId`.
    static func make(_ number: Int, of tripId: UUID) -> PlannedItemRecord {
        PlannedItemRecord(id: UUID(), tripId: tripId, title: "Sight number \(number) of the trip",
                          details: "Book a week ahead; closed on Mondays", hasReservation: number % 3 == 0, isInPlan: number % 2 == 0)
    }
}

/// A trip with its items, as GRDB's `including(all:)` decodes them: the trip from the row, the
/// items from the prefetched association.
struct PlannedTripInfo: Decodable, FetchableRecord {
    var trip: PlannedTripRecord
    var bucketList: [PlannedItemRecord]
}
