// "What's new in SwiftData" (WWDC24), 3:08: Add unique constraints to avoid duplication.
import DataStores

enum Unique {
    // Add unique constraints to avoid duplication

    @Model
    class Trip {
        #Unique<Trip>([\.name, \.startDate, \.endDate])
        var name: String
        var destination: String
        var startDate: Date
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
