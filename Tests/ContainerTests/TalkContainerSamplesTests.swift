import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

// The container and configuration samples of the talks (/seeds: WWDC23 "Dive deeper into
// SwiftData", WWDC24 "Create a custom data store with SwiftData"), as they are written there
// with only `import SwiftData` changed and `/path/to/…` made a temporary folder. The SwiftUI
// parts (`App`, `.modelContainer(…)`, `@Environment`) are left out: they need SwiftUI.

enum TalkSamples {
    @Model final class Trip {
        var name: String?
        @Relationship(deleteRule: .cascade) var bucketListItem: [BucketListItem] = [BucketListItem]()
        @Relationship(deleteRule: .cascade) var livingAccommodation: LivingAccommodations?
        init(name: String? = nil) { self.name = name }
    }
    @Model final class BucketListItem {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }
    @Model final class LivingAccommodations {
        var placeName: String
        var trip: Trip?
        init(placeName: String) { self.placeName = placeName }
    }
    @Model final class Person {
        var name: String
        var address: Address?
        init(name: String) { self.name = name }
    }
    @Model final class Address {
        var street: String
        var person: Person?
        init(street: String) { self.street = street }
    }

    /// "Dive deeper into SwiftData", 3:42: compiled, not run (they open the default store in the
    /// home folder; DefaultStoreTests runs that store in child processes).
    static func diveDeeperDefaultStore() throws -> [ModelContainer] {
        // ModelContainer initialized with just Trip
        let container = try ModelContainer(for: Trip.self)
        // SwiftData infers related model classes as well
        let container2 = try ModelContainer(
            for: [
                Trip.self,
                BucketListItem.self,
                LivingAccommodations.self
            ])
        return [container, container2]
    }

    /// "Dive deeper into SwiftData", 5:41, with `/path/to` made `folder`.
    static func diveDeeperConfigurations(in folder: URL) throws -> ModelContainer {
        let fullSchema = Schema([
            Trip.self,
            BucketListItem.self,
            LivingAccommodations.self,
            Person.self,
            Address.self
        ])

        let trips = ModelConfiguration(
            schema: Schema([
                Trip.self,
                BucketListItem.self,
                LivingAccommodations.self
            ]),
            url: URL(filePath: folder.appending(path: "trip.store").path),
            cloudKitContainerIdentifier: "com.example.trips"
        )

        let people = ModelConfiguration(
            schema: Schema([Person.self, Address.self]),
            url: URL(filePath: folder.appending(path: "people.store").path),
            cloudKitContainerIdentifier: "com.example.people"
        )

        let container = try ModelContainer(for: fullSchema, trips, people)
        return container
    }

    /// "Create a custom data store with SwiftData", 5:13 and 5:59 (the app's `container`).
    static func customStoreContainers(fileURL: URL) throws -> [ModelContainer] {
        let modelConfiguration: ModelContainer = try {
            let configuration = ModelConfiguration(schema: Schema([Trip.self]), url: fileURL)
            return try ModelContainer(for: Trip.self, configurations: configuration)
        }()
        let jsonStore: ModelContainer = try {
            let configuration = JSONStoreConfiguration(schema: Schema([Trip.self]), url: fileURL)
            return try ModelContainer(for: Trip.self, configurations: configuration)
        }()
        return [modelConfiguration, jsonStore]
    }

    /// "Create a custom data store with SwiftData", 6:58 (`SampleData.makeSharedContext()`).
    static func makeSharedContext() throws -> ModelContainer {
        let config = ModelConfiguration(isStoredInMemoryOnly: true)
        let container = try ModelContainer(for: Trip.self, configurations: config)
        return container
    }
}

@Suite struct TalkContainerSamplesTests {
    @Test func diveDeeperConfigurationsKeepEachSchemaInItsStore() throws {
        let folder = try temporaryDirectory()
        let container = try TalkSamples.diveDeeperConfigurations(in: folder)
        let context = ModelContext(container)
        context.insert(TalkSamples.Trip(name: "Iceland"))
        context.insert(TalkSamples.Person(name: "Ada"))
        try context.save()
        let trips = try ModelContainer(for: TalkSamples.Trip.self, configurations: ModelConfiguration(url: folder.appending(path: "trip.store")))
        #expect(try ModelContext(trips).fetch(FetchDescriptor<TalkSamples.Trip>()).map(\.name) == ["Iceland"])
        let people = try ModelContainer(for: TalkSamples.Person.self, configurations: ModelConfiguration(url: folder.appending(path: "people.store")))
        #expect(try ModelContext(people).fetch(FetchDescriptor<TalkSamples.Person>()).map(\.name) == ["Ada"])
        #expect(container.stores.map { $0.configuration.name } == ["trip.store", "people.store"])
    }

    @Test func customStoreContainersShareOneFile() throws {
        let fileURL = try temporaryDirectory().appending(path: "trips.json")
        let containers = try TalkSamples.customStoreContainers(fileURL: fileURL)
        let context = ModelContext(containers[0])
        context.insert(TalkSamples.Trip(name: "Oslo"))
        try context.save()
        #expect(try ModelContext(containers[1]).fetch(FetchDescriptor<TalkSamples.Trip>()).map(\.name) == ["Oslo"])
    }

    @Test func thePreviewContainerIsInMemory() throws {
        let container = try TalkSamples.makeSharedContext()
        #expect(container.stores.count == 1 && container.stores[0] is MemoryStore)
        #expect(container.schema.entities.count == 3, "Trip and the two types it relates to")
    }
}
