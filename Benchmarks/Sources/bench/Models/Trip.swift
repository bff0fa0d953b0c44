import DataStores
import GRDB

/// The talk's trip, as a model of ours: a UUID, two strings, two dates and an int, about 145 bytes
/// as JSON.
@Model final class Trip {
    var id: UUID
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var visits: Int

    init(_ record: TripRecord) {
        id = record.id
        name = record.name
        destination = record.destination
        startDate = record.startDate
        endDate = record.endDate
        visits = record.visits
    }
}

/// The same trip as a plain struct: the peers' row (a GRDB record), the element of the rewritten
/// JSON file, and the Dictionary's value.
struct TripRecord: Codable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "trip"

    var id: UUID
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var visits: Int

    /// The `number`th trip of a data set: ids are random, the rest follows from `number`.
    /// Start dates are one second apart from `epoch`, so a time range of *n* seconds holds *n* trips.
    static func make(_ number: Int) -> TripRecord {
        let start = epoch.addingTimeInterval(Double(number))
        return TripRecord(
            id: UUID(), name: "Trip \(number) along the coast", destination: destinations[number % destinations.count],
            startDate: start, endDate: start.addingTimeInterval(86_400 * Double(1 + number % 14)), visits: number % 100)
    }

    static let epoch = Date(timeIntervalSince1970: 1_767_225_600)   // 2026-01-01
    private static let destinations = ["Lisbon, Portugal", "Kyoto, Japan", "Valparaíso, Chile", "Tromsø, Norway"]
}

/// The same trip with its name and start date indexed (`#Index<IndexedTrip>([\.name], [\.startDate])`),
/// for the indexed rows; the other rows keep `Trip`, without an index, as they were measured before.
@Model final class IndexedTrip {
    #Index<IndexedTrip>([\.name], [\.startDate])
    var id: UUID
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var visits: Int

    init(_ record: TripRecord) {
        id = record.id
        name = record.name
        destination = record.destination
        startDate = record.startDate
        endDate = record.endDate
        visits = record.visits
    }
}
