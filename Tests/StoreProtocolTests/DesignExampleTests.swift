import DataStores
import MemoryStore
import Testing

@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate, \.endDate])
    #Index<Trip>([\.name], [\.startDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var destination: String

    @Attribute(.preserveValueOnDeletion)
    var startDate: Date

    @Attribute(.preserveValueOnDeletion)
    var endDate: Date
    var accommodationID: UUID?

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model
final class LivingAccommodation {
    var address: String
    var placeName: String
    var isConfirmed = false

    init(address: String, placeName: String) {
        self.address = address
        self.placeName = placeName
    }
}

/// DESIGN.md section 2, as written, on a memory store.
@Test func designExampleRunsAsWritten() throws {
    let container = try ModelContainer(for: Trip.self, LivingAccommodation.self,
                                       configurations: MemoryStoreConfiguration())
    let start = Date(timeIntervalSince1970: 1_780_000_000)
    let setup = ModelContext(container)
    setup.author = "app"
    let stay = LivingAccommodation(address: "Laugavegur 1", placeName: "Hotel Borg")
    setup.insert(stay)
    let doomed = Trip(name: "Old trip", destination: "Oslo", startDate: start, endDate: start + 86_400)
    setup.insert(doomed)
    try setup.save()
    var savedToken = try #require(try setup.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)

    let context = ModelContext(container)
    context.author = "widget"
    let trip = Trip(name: "Iceland", destination: "Akureyri", startDate: start, endDate: start + 5 * 86_400)
    context.insert(trip)
    trip.destination = "Reykjavík"
    try context.save()
    let widgetStay = try #require(try context.fetch(FetchDescriptor<LivingAccommodation>()).first)
    widgetStay.isConfirmed = true
    context.delete(try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Old trip" })).first))
    try context.save()

    var inserted: [String] = [], updated: [[String]] = [], deletedNames: [String?] = []
    var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(after: savedToken)
    descriptor.predicate = #Predicate { $0.author == "widget" }
    let transactions = try context.fetchHistory(descriptor)
    for transaction in transactions {
        for change in transaction.changes {
            switch change {
            case .insert(let insert as DefaultHistoryInsert<Trip>):
                inserted.append("\(insert.changedPersistentIdentifier.entityName)")
            case .update(let update as DefaultHistoryUpdate<LivingAccommodation>):
                updated.append(update.updatedAttributes.compactMap { LivingAccommodation.attributeName(of: $0) })
                #expect(update.updated(\.isConfirmed))
                #expect(!update.updated(\.address))
            case .delete(let delete as DefaultHistoryDelete<Trip>):
                deletedNames.append(delete.tombstone[\.name])
                #expect(delete.tombstone[\.destination] == nil)
            default: break
            }
        }
        savedToken = transaction.token
    }
    #expect(transactions.count == 2)
    #expect(inserted == ["Trip"])
    #expect(updated == [["isConfirmed"]])
    #expect(deletedNames == ["Old trip"])

    // The token is Codable: persisted between runs, it resumes after the last transaction.
    let data = try JSONEncoder().encode(savedToken)
    let restored = try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
    #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: restored)).isEmpty)
}
