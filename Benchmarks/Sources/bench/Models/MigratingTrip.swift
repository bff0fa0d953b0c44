import DataStores

/// The trip as a first app version stores it: ``Trip``'s attributes under an entity name of its
/// own, so that ``TripV2`` can be the same entity one version later.
@Model final class TripV1 {
    static var entityName: String { "MigratingTrip" }
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

/// The next version of ``TripV1``: `destination` renamed `place`, and `stars` added, not optional,
/// with a default. Opening a V1 store with it is a lightweight migration of both changes.
@Model final class TripV2 {
    static var entityName: String { "MigratingTrip" }
    var id: UUID
    var name: String
    @Attribute(originalName: "destination") var place: String
    var startDate: Date
    var endDate: Date
    var visits: Int
    var stars: Int = 0
}
