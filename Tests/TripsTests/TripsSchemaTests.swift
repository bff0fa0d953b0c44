import DataStores
import Testing
@testable import trips

/// The `@Model` declarations of `trips` describe the entities the hand-written models stored, so
/// that the JSON files an earlier `trips` wrote still open: same entity and attribute names,
/// constraints and what a deletion keeps.
@Suite struct TripsSchemaTests {
    let schema = Schema(versionedSchema: TripsSchemaV2.self)

    func entity(_ name: String) throws -> Schema.Entity {
        try #require(schema.entity(named: name))
    }

    @Test func theEntitiesKeepTheirStoredNames() throws {
        try schema.validate()
        #expect(try entity("Trip").attributeNames == ["id", "name", "destination", "startDate", "endDate", "isFavorite"])
        #expect(try entity("Trip").relationships.map(\.name) == ["bucketList", "livingAccommodation"])
        #expect(try entity("BucketListItem").attributeNames == ["id", "title", "notes", "hasReservation", "isInPlan"])
        #expect(try entity("LivingAccommodation").attributeNames == ["id", "placeName", "address", "isConfirmed"])
        #expect(Schema(Activity.self).entity(named: "Activity")?.attributeNames == ["id", "timestamp", "kind", "tripName"])
    }

    @Test func constraintsAndIndexesAreTheTalksOnes() throws {
        #expect(try entity("Trip").uniqueConstraints == [["name", "startDate", "endDate"]])
        #expect(try entity("Trip").indices == [["name"], ["startDate"]])
    }

    /// A to-one marked `@Attribute(.preserveValueOnDeletion)` is kept in the tombstone, as the
    /// hand-written models' `preservedOnDeletion: [\.title, \.trip]` kept it: the app reads
    /// `tombstone.identifiers(\.trip)` to badge the trip whose item or accommodation went.
    @Test func deletionsKeepWhatTheAppReads() throws {
        #expect(try entity("Trip").preservedOnDeletion == ["name", "startDate", "endDate"])
        #expect(try entity("BucketListItem").preservedOnDeletion == ["title", "trip"])
        #expect(try entity("LivingAccommodation").preservedOnDeletion == ["placeName", "trip"])
    }
}
