import DataStores
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// The container's initializers as SwiftData spells them, with `ModelConfiguration`s mixed with
/// typed configurations. (`ModelContainer(for: Trip.self)` with no configuration, the default
/// store, runs in child processes: DefaultStoreTests.)
@Suite struct ModelContainerInitializerTests {
    @Test func typesWithVariadicConfigurations() throws {
        let url = try temporaryDirectory().appending(path: "notes.store")
        let container = try ModelContainer(for: ConfigTrip.self, ConfigNote.self, configurations:
            ModelConfiguration("trips", schema: Schema(ConfigTrip.self), isStoredInMemoryOnly: true),
            ModelConfiguration("notes", schema: Schema(ConfigNote.self), url: url))
        #expect(container.stores.count == 2)
        #expect(try container.store(for: ConfigTrip.self) is MemoryStore)
        #expect(try container.store(for: ConfigNote.self) is JSONStore)
        let context = ModelContext(container)
        context.insert(ConfigNote(text: "pack"))
        try context.save()
        let notes = try ModelContainer(for: ConfigNote.self, configurations: JSONStoreConfiguration(url: url))
        #expect(try ModelContext(notes).fetch(FetchDescriptor<ConfigNote>()).map(\.text) == ["pack"])
    }

    @Test func aTypeNoConfigurationHoldsIsRefusedBeforeAnythingOpens() throws {
        let url = try temporaryDirectory().appending(path: "notes.store")
        // ConfigTrip (and the types it relates) are in the container, but the only schema given
        // holds notes: a save of a trip could go nowhere. It used to open, then throw at save.
        let error = #expect(throws: DataStoreError.self) {
            try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(schema: Schema(ConfigNote.self), url: url))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("No configuration holds 'ConfigTrip'") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing is created")
        do {
            _ = try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(schema: Schema(ConfigNote.self), url: url))
            Issue.record("opened")
        } catch SwiftDataError.loadIssueModelContainer {
            // the talks' catch clause
        } catch {
            Issue.record("not a load issue: \(error)")
        }
    }

    @Test func aSchemaWithAnArrayOrVariadicConfigurations() throws {
        let schema = Schema([ConfigTrip.self, ConfigNote.self])
        let byArray = try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        #expect(byArray.stores.first is MemoryStore)
        let variadic = try ModelContainer(for: schema, configurations:
            ModelConfiguration("trips", schema: Schema(ConfigTrip.self), isStoredInMemoryOnly: true),
            MemoryStoreConfiguration(name: "notes", schema: Schema(ConfigNote.self)))
        #expect(variadic.stores.map { $0.configuration.name } == ["trips", "notes"])
        #expect(try variadic.store(for: ConfigNote.self).configuration.name == "notes")
    }

    @Test func aSchemaWithAMigrationPlanAndAVariadicModelConfiguration() throws {
        let storeURL = try temporaryDirectory().appending(path: "trips.store")
        let v1 = try ModelContainer(for: Schema(versionedSchema: SampleTripsSchemaV1.self),
                                    configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(v1)
        let day = Date(timeIntervalSince1970: 1_780_000_000)
        context.insert(SampleTripsSchemaV1.Trip(name: "Iceland", destination: "Reykjavík", start_date: day, end_date: day))
        try context.save()

        let container = try ModelContainer(for: Schema(versionedSchema: SampleTripsSchemaV3.self),
                                           migrationPlan: SampleTripsMigrationPlan.self,
                                           configurations: ModelConfiguration(url: storeURL))
        let trips = try ModelContext(container).fetch(FetchDescriptor<SampleTripsSchemaV3.Trip>())
        #expect(trips.map(\.name) == ["Iceland"])
        #expect(trips.map(\.startDate) == [day])
    }

    @Test func relatedModelsAreInferredFromRelationships() throws {
        let container = try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(Set(container.schema.entities.map(\.name)) == [ConfigTrip.entityName, ConfigBucketItem.entityName, ConfigLodging.entityName])
        let context = ModelContext(container)
        let trip = ConfigTrip(name: "Kyoto")
        context.insert(trip)
        trip.lodging = ConfigLodging(placeName: "Ryokan")
        trip.bucketList.append(ConfigBucketItem(title: "temples"))
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<ConfigLodging>()).map(\.placeName) == ["Ryokan"])
        #expect(try reader.fetch(FetchDescriptor<ConfigBucketItem>()).map { $0.trip?.name } == ["Kyoto"])
    }

    @Test func anEmptyConfigurationListSaysWhatToWrite() throws {
        let error = try #require(throws: DataStoreError.self) {
            try ModelContainer(for: Schema(ConfigTrip.self), configurations: [])
        }
        #expect(error.code == .invalidSchema && error.message.contains("ModelConfiguration()"))
    }
}
