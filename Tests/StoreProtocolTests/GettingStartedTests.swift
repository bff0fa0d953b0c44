import Foundation
import MemoryStore
import Observation
import StoreProtocol
import Testing

// The code of the "Getting started" article (StoreProtocol.docc/GettingStarted.md), as written
// there: a renamed API breaks this build, not the reader.

/// The article's names, in a namespace of their own (other tests have a `Trip`).
enum GettingStartedArticle {
final class Trip: PersistentModel, Codable {
    var id = UUID()
    var name: String
    var destination: String
    var startDate: Date

    init(name: String, destination: String, startDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }

    static let schemaMetadata = SchemaMetadata<Trip>(
        attributes: [\.id, \.name, \.destination, \.startDate],
        unique: [[\.name]],
        indexed: [[\.startDate]],
        preservedOnDeletion: [\.name])
}

@Observable final class ObservedTrip: PersistentModel, Codable {
    var id = UUID()
    var name: String
    var destination: String

    init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }

    enum CodingKeys: String, CodingKey {
        case _id = "id", _name = "name", _destination = "destination"
    }

    static let schemaMetadata = SchemaMetadata<ObservedTrip>(
        attributes: [.attribute("id", \.id), .attribute("name", \.name), .attribute("destination", \.destination)],
        unique: [[\.name]])
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

    @Test func theArticlesObservableModelIsStoredUnderItsNames() throws {
        typealias ObservedTrip = GettingStartedArticle.ObservedTrip
        let container = try ModelContainer(for: ObservedTrip.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        context.insert(ObservedTrip(name: "Iceland", destination: "Reykjavík"))
        try context.save()
        #expect(container.schema.entity(for: ObservedTrip.self)?.attributeNames == ["id", "name", "destination"])
        let fetched = try ModelContext(container).fetch(FetchDescriptor<ObservedTrip>(predicate: #Predicate { $0.name == "Iceland" }))
        #expect(fetched.map(\.destination) == ["Reykjavík"])
    }
}
