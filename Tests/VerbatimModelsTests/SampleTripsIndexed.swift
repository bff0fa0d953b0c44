// "What's new in SwiftData" (WWDC24): Add Index for commonly used KeyPaths or combination of
// KeyPaths. Two of the slide's typos fixed, as any port must: `= [BucketListItem]` (a type where
// a value belongs) is `= [BucketListItem]()`, and `LivingAccommodation` (a model-typed property
// with no value, which no initializer sets) is `LivingAccommodation?`, as on the talk's other slides.
import DataStores

enum Indexed {
    // Add Index for commonly used KeyPaths or combination of KeyPaths

    @Model
    class Trip {
        #Unique<Trip>([\.name, \.startDate, \.endDate])
        #Index<Trip>([\.name], [\.startDate], [\.endDate], [\.name, \.startDate, \.endDate])
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
