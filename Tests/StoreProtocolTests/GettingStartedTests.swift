import DataStores
import MemoryStore
import Testing

// The code of the "Getting started" article (StoreProtocol.docc/GettingStarted.md), as written
// there: a renamed API breaks this build, not the reader.

/// The article's names, in a namespace of their own (other tests have a `Trip`).
enum GettingStartedArticle {
@Model
final class Trip {
    #Unique<Trip>([\.name])
    #Index<Trip>([\.startDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var destination: String
    var startDate: Date

    init(name: String, destination: String, startDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}

    static func run() throws -> [String] {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let iceland = Trip(name: "Iceland", destination: "Reykjavík", startDate: Date(timeIntervalSince1970: 1_780_000_000))
        context.insert(iceland)
        context.insert(Trip(name: "Japan", destination: "Kyoto", startDate: Date(timeIntervalSince1970: 1_790_000_000)))
        try context.save()

        let later = Date(timeIntervalSince1970: 1_785_000_000)
        let upcoming = try context.fetch(FetchDescriptor<Trip>(
            predicate: #Predicate { $0.startDate > later },
            sortBy: [SortDescriptor(\.startDate)]))

        // The article prints; this prints into `seen`.
        var seen: [String] = []
        func print(_ items: Any...) { seen.append(items.map { "\($0)" }.joined(separator: " ")) }

        let token = try container.currentHistoryToken()
        iceland.destination = "Akureyri"
        context.delete(upcoming[0])
        try context.save()

        for transaction in try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token)) {
            for change in transaction.changes {
                switch change {
                case .update(let update as DefaultHistoryUpdate<Trip>):
                    print("updated", update.updatedAttributes.contains { $0 == \Trip.destination })   // true
                case .delete(let delete as DefaultHistoryDelete<Trip>):
                    print("deleted", delete.tombstone[\.name] ?? "?")                                 // Japan
                default:
                    break
                }
            }
        }
        return upcoming.map(\.name) + seen
    }
}

@Suite struct GettingStartedTests {
    @Test func theArticleRunsAsWritten() throws {
        #expect(try GettingStartedArticle.run() == ["Japan", "updated true", "deleted Japan"])
    }

    @Test func theArticlesModelIsStoredWithItsMetadata() throws {
        typealias Trip = GettingStartedArticle.Trip
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration())
        let entity = try #require(container.schema.entity(for: Trip.self))
        #expect(entity.attributeNames == ["id", "name", "destination", "startDate"])
        #expect(entity.uniqueConstraints == [["name"]] && entity.indices == [["startDate"]])
        let context = ModelContext(container)
        context.insert(Trip(name: "Iceland", destination: "Reykjavík", startDate: .now))
        try context.save()
        // #Unique: a second "Iceland" updates the stored one.
        context.insert(Trip(name: "Iceland", destination: "Akureyri", startDate: .now))
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Iceland" }))
        #expect(fetched.map(\.destination) == ["Akureyri"])
    }
}
