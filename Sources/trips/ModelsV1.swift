import Foundation
import StoreProtocol

/// The models as the first release stored them, kept so that its stores open: the migration plan
/// needs to know what it migrates from. (The activity log is not versioned: `Activity` has not
/// changed.)
enum TripsSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self, LivingAccommodation.self] }

    final class Trip: PersistentModel, Codable {
        var id = UUID()
        var name: String
        var destination: String
        var startDate: Date
        var endDate: Date
        var bucketList: [BucketListItem] = [BucketListItem]()
        var livingAccommodation: LivingAccommodation?

        static let schemaMetadata = SchemaMetadata<Trip>(
            attributes: [\.id, \.name, \.destination, \.startDate, \.endDate],
            relationships: [
                .relationship(\.bucketList, deleteRule: .cascade, inverse: \BucketListItem.trip),
                .relationship(\.livingAccommodation, deleteRule: .cascade, inverse: \LivingAccommodation.trip),
            ],
            unique: [[\.name, \.startDate, \.endDate]],
            indexed: [[\.name], [\.startDate]],
            preservedOnDeletion: [\.name, \.startDate, \.endDate])
    }

    final class BucketListItem: PersistentModel, Codable {
        var id = UUID()
        var title: String
        var details: String
        var hasReservation: Bool
        var isInPlan: Bool
        var trip: Trip?

        static let schemaMetadata = SchemaMetadata<BucketListItem>(
            attributes: [\.id, \.title, \.details, \.hasReservation, \.isInPlan],
            relationships: [.relationship(\.trip)],
            preservedOnDeletion: [\.title, \.trip])
    }

    final class LivingAccommodation: PersistentModel, Codable {
        var id = UUID()
        var placeName: String
        var address: String
        var isConfirmed = false
        var trip: Trip?

        static let schemaMetadata = SchemaMetadata<LivingAccommodation>(
            attributes: [\.id, \.placeName, \.address, \.isConfirmed],
            relationships: [.relationship(\.trip)],
            preservedOnDeletion: [\.placeName, \.trip])
    }
}

/// The second release: a bucket-list item's `details` are its `notes`, and a trip can be a
/// favourite. Both are lightweight changes, said in the models' metadata.
enum TripsSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self, LivingAccommodation.self] }
}

/// From the first release to the second.
enum TripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self)] }
}
