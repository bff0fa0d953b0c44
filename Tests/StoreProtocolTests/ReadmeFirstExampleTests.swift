import DataStores
import Testing

// The first example of README.md, as written there (`Tools/docs/check-samples.py` checks that the
// README's samples are held by tests, line for line): a renamed API breaks this build, not the
// newcomer's first ten minutes.

/// The README's names, in a namespace of their own (other tests have a `Trip`).
enum ReadmeFirstExample {
@Model
final class Trip {
    var name: String
    var destination: String

    init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }
}

    /// The README's top-level code, run; what it prints is returned.
    static func run() throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
let start = try container.currentHistoryToken()

context.insert(Trip(name: "Iceland", destination: "Reykjavík"))
try context.save()

let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
print(trips.map(\.destination))                        // ["Reykjavík"]

let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: start))
print(history.count, "save,", history[0].changes.count, "insert")   // 1 save, 1 insert

        return printed
    }
}

@Suite struct ReadmeFirstExampleTests {
    @Test func theFirstExamplePrintsWhatItsCommentsSay() throws {
        #expect(try ReadmeFirstExample.run() == ["[\"Reykjavík\"]", "1 save, 1 insert"])
    }
}
