import DataStores
import StoreSync

/// The models as the first release stored them, kept so that its stores open: the migration plan
/// needs to know what it migrates from. (The activity log is not versioned: `Activity` has not
/// changed.)
enum TripsSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self, LivingAccommodation.self] }

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

        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = [BucketListItem]()

        @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
        var livingAccommodation: LivingAccommodation?

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    @Model
    final class BucketListItem {
        @Attribute(.preserveValueOnDeletion)
        var title: String
        var details: String
        var hasReservation: Bool
        var isInPlan: Bool

        @Attribute(.preserveValueOnDeletion)
        var trip: Trip?

        init(title: String, details: String) {
            self.title = title
            self.details = details
            hasReservation = false
            isInPlan = false
        }
    }

    @Model
    final class LivingAccommodation {
        @Attribute(.preserveValueOnDeletion)
        var placeName: String
        var address: String
        var isConfirmed = false

        @Attribute(.preserveValueOnDeletion)
        var trip: Trip?

        init(placeName: String, address: String) {
            self.placeName = placeName
            self.address = address
        }
    }
}

/// The second release: a bucket-list item's `details` are its `notes`, and a trip can be a
/// favourite. Both are lightweight changes, said in the models' metadata.
enum TripsSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self, LivingAccommodation.self] }
}

/// The third release: the store also holds the replicator's models (`trips sync`), which keep its
/// replica identity, positions and per-attribute clocks. New entities only: a lightweight change.
enum TripsSchemaV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { TripsSchemaV2.models + Replicator.models }
}

/// From the first release to the second, and to the third.
enum TripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self, TripsSchemaV3.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self),
         .lightweight(fromVersion: TripsSchemaV2.self, toVersion: TripsSchemaV3.self)]
    }
}
