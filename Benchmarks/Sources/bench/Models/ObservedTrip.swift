import Foundation
import Observation
import StoreProtocol

/// ``Trip`` as an `@Observable` model: the context watches it, so a save skips the held trips
/// that did not change. Its storage is `_name`, hence the coding keys and the named attributes.
@Observable final class ObservedTrip: PersistentModel {
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

    enum CodingKeys: String, CodingKey {
        case _id = "id", _name = "name", _destination = "destination", _startDate = "startDate", _endDate = "endDate", _visits = "visits"
    }

    static let schemaMetadata = SchemaMetadata<ObservedTrip>(attributes: [
        .attribute("id", \.id), .attribute("name", \.name), .attribute("destination", \.destination),
        .attribute("startDate", \.startDate), .attribute("endDate", \.endDate), .attribute("visits", \.visits),
    ])
}
