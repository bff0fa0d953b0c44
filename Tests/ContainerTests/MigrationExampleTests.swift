import DataStores
import JSONStore
import StoreTestSupport
import Testing

// The README's migration walkthrough, compiled and run: SwiftData's SampleTrips migration from
// the WWDC23 session "Model your schema with SwiftData", as this library says it.

enum SampleTripsSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        var name: String
        var destination: String
        var start_date: Date
        var end_date: Date

        init(name: String, destination: String, start_date: Date, end_date: Date) {
            self.name = name
            self.destination = destination
            self.start_date = start_date
            self.end_date = end_date
        }
    }
}

/// Version 2: trip names are unique.
enum SampleTripsSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        var start_date: Date
        var end_date: Date

        init(name: String, destination: String, start_date: Date, end_date: Date) {
            self.name = name
            self.destination = destination
            self.start_date = start_date
            self.end_date = end_date
        }
    }
}

/// Version 3: Swift names for the dates (stored under their old names until migrated), and a
/// rating that stored trips start at 0.
enum SampleTripsSchemaV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        @Attribute(originalName: "start_date") var startDate: Date
        @Attribute(originalName: "end_date") var endDate: Date
        var rating = 0

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }
}

enum SampleTripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SampleTripsSchemaV1.self, SampleTripsSchemaV2.self, SampleTripsSchemaV3.self]
    }
    static var stages: [MigrationStage] { [migrateV1toV2, migrateV2toV3] }

    /// Before names become unique, keep the first trip of each name.
    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: SampleTripsSchemaV1.self, toVersion: SampleTripsSchemaV2.self,
        willMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<SampleTripsSchemaV1.Trip>(sortBy: [SortDescriptor(\.start_date)]))
            var names = Set<String>()
            for trip in trips where !names.insert(trip.name).inserted { context.delete(trip) }
            try context.save()
        },
        didMigrate: nil)

    static let migrateV2toV3 = MigrationStage.lightweight(fromVersion: SampleTripsSchemaV2.self, toVersion: SampleTripsSchemaV3.self)
}

@Suite struct MigrationExampleTests {
    @Test func theSampleTripsPlanMigratesAVersion1Store() throws {
        let storeURL = try temporaryDirectory().appending(path: "trips.json")
        let v1 = try ModelContainer(for: Schema(versionedSchema: SampleTripsSchemaV1.self),
                                    configurations: [JSONStoreConfiguration(url: storeURL)])
        let context = ModelContext(v1)
        for (index, name) in ["Iceland", "Japan", "Iceland"].enumerated() {
            let day = Date(timeIntervalSince1970: 1_780_000_000 + Double(index) * 86_400)
            context.insert(SampleTripsSchemaV1.Trip(name: name, destination: "somewhere", start_date: day, end_date: day))
        }
        try context.save()

        let container = try ModelContainer(for: Schema(versionedSchema: SampleTripsSchemaV3.self),
                                           migrationPlan: SampleTripsMigrationPlan.self,
                                           configurations: [JSONStoreConfiguration(url: storeURL)])
        let trips = try ModelContext(container).fetch(FetchDescriptor<SampleTripsSchemaV3.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Iceland", "Japan"], "the later Iceland went before names became unique")
        #expect(trips.map(\.startDate.timeIntervalSince1970) == [1_780_000_000, 1_780_086_400], "start_date is startDate")
        #expect(trips.map(\.rating) == [0, 0])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<SampleTripsSchemaV3.Trip>()) == 2)

        // Version 1 cannot open it again: the store holds version 3.
        #expect {
            try ModelContainer(for: Schema(versionedSchema: SampleTripsSchemaV1.self), configurations: [JSONStoreConfiguration(url: storeURL)])
        } throws: { error in
            (error as? DataStoreError)?.code == .incompatibleSchema
        }
    }
}
