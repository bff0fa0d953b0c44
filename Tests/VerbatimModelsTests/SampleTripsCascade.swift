// "Dive deeper into SwiftData" (WWDC23): the SampleTrips Trip with its relationships cascading.
// The talk's slide spells the delete rule as the 2023 beta did, `@Relationship(.cascade)`; the
// released SwiftData (and this package) spell it `@Relationship(deleteRule: .cascade)`.
import DataStores

enum Cascade {
    @Model
    final class Trip {
        var destination: String?
        var end_date: Date?
        var name: String?
        var start_date: Date?

        @Relationship(deleteRule: .cascade)
        var bucketListItem: [BucketListItem] = [BucketListItem]()

        @Relationship(deleteRule: .cascade)
        var livingAccommodation: LivingAccommodation?
    }

    @Model
    final class BucketListItem {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }

    @Model
    final class LivingAccommodation {
        var placeName: String
        var trip: Trip?
        init(placeName: String) { self.placeName = placeName }
    }
}
