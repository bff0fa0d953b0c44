import DataStores

/// A trip, as in the talk's SampleTrips: its bucket list and where it stays are relationships,
/// loaded with the trip and deleted with it. (These are the models of ``TripsSchemaV2``; the
/// first release's are in ``TripsSchemaV1``.)
@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate, \.endDate])
    #Index<Trip>([\.name], [\.startDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var destination: String

    @Attribute(.preserveValueOnDeletion)
    var startDate: Date

    @Attribute(.preserveValueOnDeletion)
    var endDate: Date

    // A trip owns both: deleting it deletes them, in the same save.
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = [BucketListItem]()

    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?

    /// New in the second release: stored trips get `false` when their store is migrated.
    var isFavorite = false

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

/// Something to do on a trip.
@Model
final class BucketListItem {
    @Attribute(.preserveValueOnDeletion)
    var title: String

    /// Called `details` in the first release: its stores are migrated to the new name.
    @Attribute(originalName: "details")
    var notes: String
    var hasReservation: Bool
    var isInPlan: Bool

    /// The trip whose bucket list holds this item; the context keeps it in step with
    /// `Trip.bucketList` (the inverse is declared there). Preserved on deletion so that history
    /// can say whose item went.
    @Attribute(.preserveValueOnDeletion)
    var trip: Trip?

    init(title: String, notes: String = "", hasReservation: Bool = false, isInPlan: Bool = false) {
        self.title = title
        self.notes = notes
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }
}

/// Where a trip stays; the widget confirms it.
@Model
final class LivingAccommodation {
    @Attribute(.preserveValueOnDeletion)
    var placeName: String
    var address: String
    var isConfirmed = false

    /// The trip that stays here; kept in step with `Trip.livingAccommodation`. Preserved on
    /// deletion so that the app can badge a trip whose accommodation was removed.
    @Attribute(.preserveValueOnDeletion)
    var trip: Trip?

    init(placeName: String, address: String) {
        self.placeName = placeName
        self.address = address
    }
}

/// What was done, when, by whom: kept in an insert-only log beside the trips.
@Model
final class Activity {
    var timestamp: Date
    var kind: String
    var tripName: String

    init(kind: String, tripName: String, timestamp: Date = Date()) {
        self.kind = kind
        self.tripName = tripName
        self.timestamp = timestamp
    }
}
