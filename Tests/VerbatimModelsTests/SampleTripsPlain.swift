// "What's new in SwiftData" (WWDC24), 1:32 and 2:16: SampleTrips models decorated with @Model,
// as the talk shows them, with `import SwiftData` changed to `import DataStores`. Each variant of
// the talks' Trip lives in a namespace of its own, so that several can be in one test target.
import Foundation
import DataStores

enum Plain {
    // Trip Models decorated with @Model

    @Model
    class Trip {
        var name: String
        var destination: String
        var startDate: Date
        var endDate: Date
        var bucketList: [BucketListItem] = [BucketListItem]()
        var livingAccommodation: LivingAccommodation?
    }

    // The talk elides these two (`{...}`); written as the SampleTrips app has them.
    @Model
    class BucketListItem {
        var title: String
        var details: String
        var hasReservation: Bool
        var isInPlan: Bool
        var trip: Trip?

        init(title: String, details: String, hasReservation: Bool, isInPlan: Bool) {
            self.title = title
            self.details = details
            self.hasReservation = hasReservation
            self.isInPlan = isInPlan
        }
    }

    @Model
    class LivingAccommodation {
        var address: String
        var placeName: String
        var trip: Trip?

        init(address: String, placeName: String) {
            self.address = address
            self.placeName = placeName
        }
    }
}
