import Foundation
import StoreProtocol

/// A trip, as in the talk's SampleTrips: its bucket list and where it stays are relationships,
/// loaded with the trip and deleted with it. (These are the models of ``TripsSchemaV2``; the
/// first release's are in ``TripsSchemaV1``.)
final class Trip: PersistentModel, Codable {
    var id = UUID()
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var bucketList: [BucketListItem] = [BucketListItem]()
    var livingAccommodation: LivingAccommodation?
    /// New in the second release: stored trips get `false` when their store is migrated.
    var isFavorite = false

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }

    static let schemaMetadata = SchemaMetadata<Trip>(
        attributes: [\.id, \.name, \.destination, \.startDate, \.endDate, \.isFavorite],
        relationships: [
            // A trip owns both: deleting it deletes them, in the same save.
            .relationship(\.bucketList, deleteRule: .cascade, inverse: \BucketListItem.trip),
            .relationship(\.livingAccommodation, deleteRule: .cascade, inverse: \LivingAccommodation.trip),
        ],
        unique: [[\.name, \.startDate, \.endDate]],
        indexed: [[\.name], [\.startDate]],
        preservedOnDeletion: [\.name, \.startDate, \.endDate],
        attributeOptions: [.defaultValue(\.isFavorite, false)])
}

/// Something to do on a trip.
final class BucketListItem: PersistentModel, Codable {
    var id = UUID()
    var title: String
    /// Called `details` in the first release: its stores are migrated to the new name.
    var notes: String
    var hasReservation: Bool
    var isInPlan: Bool
    /// The trip whose bucket list holds this item; the context keeps it in step with
    /// `Trip.bucketList` (the inverse is declared there).
    var trip: Trip?

    init(title: String, notes: String = "", hasReservation: Bool = false, isInPlan: Bool = false) {
        self.title = title
        self.notes = notes
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }

    static let schemaMetadata = SchemaMetadata<BucketListItem>(
        attributes: [\.id, \.title, \.notes, \.hasReservation, \.isInPlan],
        relationships: [.relationship(\.trip)],
        // The trip too, so that history can say whose item went.
        preservedOnDeletion: [\.title, \.trip],
        attributeOptions: [.originalName(\.notes, "details")])
}

/// Where a trip stays; the widget confirms it.
final class LivingAccommodation: PersistentModel, Codable {
    var id = UUID()
    var placeName: String
    var address: String
    var isConfirmed = false
    /// The trip that stays here; kept in step with `Trip.livingAccommodation`.
    var trip: Trip?

    init(placeName: String, address: String) {
        self.placeName = placeName
        self.address = address
    }

    static let schemaMetadata = SchemaMetadata<LivingAccommodation>(
        attributes: [\.id, \.placeName, \.address, \.isConfirmed],
        relationships: [.relationship(\.trip)],
        // The trip too, so that the app can badge a trip whose accommodation was removed.
        preservedOnDeletion: [\.placeName, \.trip])
}

/// What was done, when, by whom: kept in an insert-only log beside the trips.
final class Activity: PersistentModel, Codable {
    var id = UUID()
    var timestamp: Date
    var kind: String
    var tripName: String

    init(kind: String, tripName: String, timestamp: Date = Date()) {
        self.kind = kind
        self.tripName = tripName
        self.timestamp = timestamp
    }

    static let schemaMetadata = SchemaMetadata<Activity>(attributes: [\.id, \.timestamp, \.kind, \.tripName])
}
