import DataStores
import MemoryStore
import Testing

/// The DataStores article's sample, line for line (Tools/docs/check-samples.py holds it here).
enum ArticleSample {
    @Model
    class Trip {
        #Unique<Trip>([\.name, \.startDate])
        @Attribute(.preserveValueOnDeletion) var name: String
        var startDate = Date.now
        @Relationship(deleteRule: .cascade) var bucketList: [BucketListItem] = []
        var livingAccommodation: LivingAccommodation?
        @Transient var isExpanded = false

        init(name: String) { self.name = name }
    }

    @Model final class BucketListItem {
        var title = ""
        var trip: Trip?
        init() {}
    }

    @Model final class LivingAccommodation {
        var placeName = ""
        var trip: Trip?
        init() {}
    }
}

@Suite struct DocumentationSampleTests {
    /// The sample's metadata says what its declaration says: the unique constraint, the
    /// preserved attribute, the cascading relationship, and no transient property.
    @Test func theArticleSampleHasTheSchemaItDeclares() throws {
        let entity = try #require(Schema(ArticleSample.Trip.self).entity(for: ArticleSample.Trip.self))
        #expect(entity.attributeNames == ["id", "name", "startDate"])
        #expect(entity.uniqueConstraints == [["name", "startDate"]])
        #expect(entity.preservedOnDeletion == ["name"])
        #expect(entity.relationships.map(\.name) == ["bucketList", "livingAccommodation"])
        #expect(entity.relationships.first?.deleteRule == .cascade)
        _ = try ModelContainer(for: ArticleSample.Trip.self, configurations: MemoryStoreConfiguration())
    }
}
