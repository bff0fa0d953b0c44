// "What's new in SwiftData" (WWDC24), 3:36, and "Track model changes with SwiftData history"
// (WWDC24): Add .preserveValueOnDeletion to capture unique columns.
import DataStores

enum Preserved {
    // Add .preserveValueOnDeletion to capture unique columns

    @Model
    class Trip {
        #Unique<Trip>([\.name, \.startDate, \.endDate])
        @Attribute(.preserveValueOnDeletion)
        var name: String
        var destination: String
        @Attribute(.preserveValueOnDeletion)
        var startDate: Date
        @Attribute(.preserveValueOnDeletion)
        var endDate: Date
        var bucketList: [BucketListItem] = [BucketListItem]()
        var livingAccommodation: LivingAccommodation?
    }

    @Model
    class BucketListItem {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }

    @Model
    class LivingAccommodation {
        var placeName: String
        var trip: Trip?
        init(placeName: String) { self.placeName = placeName }
    }
}
