import DataStores
import MemoryStore
import StoreTestSupport
import Testing

// The samples of the DataStores article "Coming from SwiftData" (DataStores.docc/
// ComingFromSwiftData.md), each held here as the article writes it (`Tools/docs/check-samples.py`
// checks it line for line) and run: a renamed API breaks this build, not the reader's port.

/// The article's models, in a namespace of their own (other tests have a `Trip`).
enum ComingFromSwiftData {
@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = []

    init(name: String, startDate: Date) {
        self.name = name
        self.startDate = startDate
    }
}

@Model
final class BucketListItem {
    var title: String
    var trip: Trip?

    init(title: String) {
        self.title = title
    }
}

@ModelActor
actor TripImporter {
    func importTrips(named names: [String]) throws -> [PersistentIdentifier] {
        let trips = names.map { Trip(name: $0, startDate: .now) }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }
}
}

@MainActor @Suite struct ComingFromSwiftDataTests {
    typealias Trip = ComingFromSwiftData.Trip
    typealias BucketListItem = ComingFromSwiftData.BucketListItem
    typealias TripImporter = ComingFromSwiftData.TripImporter

    /// "Containers and configurations": a file at a URL, the main context, a save; another
    /// container on the same file reads the trip.
    @Test func aContainerItsMainContextAndASave() throws {
        let directory = try temporaryDirectory()

let configuration = ModelConfiguration(url: directory.appending(path: "trips.store"))
let container = try ModelContainer(for: Trip.self, BucketListItem.self, configurations: configuration)
let context = container.mainContext
context.insert(Trip(name: "Iceland", startDate: .now))
try context.save()      // autosave would save once the main actor is idle; a command-line program saves before it exits

        #expect(context.autosaveEnabled && !ModelContext(container).autosaveEnabled)
        let reader = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: configuration.url, allowsSave: false))
        #expect(try ModelContext(reader).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Iceland"])
    }

    /// "Contexts": undo right after a change undoes that change, after a save too.
    @Test func undoRightAfterAChangeUndoesIt() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))

container.isUndoEnabled = true          // SwiftData: isUndoEnabled: on the .modelContainer modifier
let context = container.mainContext
let trip = Trip(name: "Iceland", startDate: .now)
context.insert(trip)
try context.save()
trip.name = "Iceland in June"
context.undoManager?.undo()             // right after the change: trip.name is "Iceland" again

        #expect(trip.name == "Iceland")
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Iceland"], "the saved trip stays")
    }

    /// "Errors": SwiftData's catch clause catches this package's expired-token error.
    @Test func theCatchClauseOfAnExpiredTokenPortsUnchanged() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Trip(name: "Iceland", startDate: .now))
        try context.save()
        var token: DefaultHistoryToken? = try container.currentHistoryToken()
        context.insert(Trip(name: "Chile", startDate: .now))
        try context.save()
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())

do {
    let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
    token = transactions.last?.token ?? token
} catch SwiftDataError.historyTokenExpired {
    token = nil   // history was deleted: re-read the data, then follow from the current token
}

        #expect(token == nil, "the catch clause ran")
    }

    /// "Concurrency": a model actor inserts off the main actor; the main context finds the trips.
    @Test func aModelActorImportsOffTheMainActor() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))

let importer = TripImporter(modelContainer: container)
let ids = try await importer.importTrips(named: ["Iceland", "Chile"])
let iceland = try container.mainContext.model(for: ids[0]) as? Trip

        #expect(iceland?.name == "Iceland")
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Trip>()) == 2)
    }

    /// The article's models as SwiftData declares them: the unique constraint upserts, the
    /// cascade deletes the bucket list, the inverse is kept from the item's side.
    @Test func theArticlesModelsBehaveAsSwiftDatasDo() throws {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        #expect(container.schema.entity(for: BucketListItem.self) != nil, "the related model is in the schema")
        let context = ModelContext(container)
        let day = Date(timeIntervalSince1970: 1_780_000_000)
        let trip = Trip(name: "Iceland", startDate: day)
        let item = BucketListItem(title: "Geysir")
        context.insert(trip)
        item.trip = trip
        try context.save()
        #expect(trip.bucketList.map(\.title) == ["Geysir"])

        context.delete(trip)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 0, "the cascade deleted the item")

        context.insert(Trip(name: "Japan", startDate: day))
        try context.save()
        context.insert(Trip(name: "Japan", startDate: day))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1, "the same name and date update the stored trip")
    }
}
