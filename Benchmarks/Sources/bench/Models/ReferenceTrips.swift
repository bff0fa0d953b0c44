import Foundation
import Observation
import StoreProtocol

/// ``Trip`` as an `@Observable` class that is no model: the reference an `@Model` attribute set
/// and get are measured beside (the `models` section).
@Observable final class ObservableTrip {
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

/// ``Trip`` written by hand as before `@Model`: a `Codable` class listing its attributes, coded
/// through `SnapshotEncoder`/`SnapshotDecoder` and compared by snapshot at save. The reference
/// the `@Model` trip's encode, decode and fetch are measured beside (the `models` and `context`
/// sections).
final class CodableTrip: PersistentModel, Codable {
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

    static let schemaMetadata = SchemaMetadata<CodableTrip>(
        attributes: [\.id, \.name, \.destination, \.startDate, \.endDate, \.visits])
}
