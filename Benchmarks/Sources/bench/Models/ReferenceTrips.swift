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

/// ``Trip`` coded as models were before `@Model`: through `Codable`, `SnapshotEncoder` and
/// `SnapshotDecoder` (what `PersistentModel`'s retired defaults did, written out here since the
/// library has one model path now). The reference the `@Model` trip's encode, decode and fetch are
/// measured beside (the `models` and `context` sections). Its decode makes a second instance and
/// copies it, which the retired default avoided by delegating to `init(from:)`.
final class CodableTrip: PersistentModel, Codable {
    let persistentBackingData = ModelBacking()
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

    private enum CodingKeys: String, CodingKey {
        case id, name, destination, startDate, endDate, visits
    }

    static let schemaMetadata = SchemaMetadata<CodableTrip>(properties: [
        .attribute("id", \CodableTrip.id), .attribute("name", \CodableTrip.name),
        .attribute("destination", \CodableTrip.destination), .attribute("startDate", \CodableTrip.startDate),
        .attribute("endDate", \CodableTrip.endDate), .attribute("visits", \CodableTrip.visits),
    ])

    func storedValues() throws -> [String: SnapshotValue] {
        try SnapshotEncoder().encodeAttributes(self)
    }

    init(storedValues values: [String: SnapshotValue]) throws {
        let decoded = try SnapshotDecoder().decode(CodableTrip.self, fromAttributes: values)
        (id, name, destination, startDate, endDate, visits) =
            (decoded.id, decoded.name, decoded.destination, decoded.startDate, decoded.endDate, decoded.visits)
    }

    func assignStoredValues(_ values: [String: SnapshotValue]) throws {
        let decoded = try CodableTrip(storedValues: values)
        (id, name, destination, startDate, endDate, visits) =
            (decoded.id, decoded.name, decoded.destination, decoded.startDate, decoded.endDate, decoded.visits)
    }
}
