import Foundation
import StoreProtocol

/// A trip, as in the talk's SampleTrips.
final class Trip: PersistentModel {
    var id = UUID()
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var accommodationID: UUID?

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }

    static let schemaMetadata = SchemaMetadata<Trip>(
        attributes: [\.id, \.name, \.destination, \.startDate, \.endDate, \.accommodationID],
        unique: [[\.name, \.startDate, \.endDate]],
        indexed: [[\.name], [\.startDate]],
        preservedOnDeletion: [\.name, \.startDate, \.endDate])
}

/// Where a trip stays; the widget confirms it.
final class LivingAccommodation: PersistentModel {
    var id = UUID()
    var tripID: UUID
    var placeName: String
    var address: String
    var isConfirmed = false

    init(tripID: UUID, placeName: String, address: String) {
        self.tripID = tripID
        self.placeName = placeName
        self.address = address
    }

    static let schemaMetadata = SchemaMetadata<LivingAccommodation>(
        attributes: [\.id, \.tripID, \.placeName, \.address, \.isConfirmed],
        preservedOnDeletion: [\.placeName])
}

/// What was done, when, by whom: kept in an insert-only log beside the trips.
final class Activity: PersistentModel {
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
