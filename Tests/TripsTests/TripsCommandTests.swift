import Foundation
import StoreProtocol
import StoreTestSupport
import Testing
@testable import trips

/// `trips` as real processes: the widget and the app, on one JSON store.
@Suite struct TripsCommandTests {
    let directory: URL
    init() throws { directory = try temporaryDirectory() }

    /// Runs `trips` in the test's directory; returns its standard output lines.
    @discardableResult
    func trips(_ arguments: String..., expectStatus status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChildProcess {
        let child = try ChildProcess(arguments, executable: "trips", directory: directory)
        let exit = child.finish()
        #expect(exit == status, "trips \(arguments.joined(separator: " ")): exit \(exit), stderr: \(child.errorText)",
                sourceLocation: sourceLocation)
        return child
    }

    func unreadTrips() throws -> [String] {
        try trips("unread").lines.dropFirst().map { String($0.prefix { $0 != " " }) }
    }

    @Test func theWidgetChangesAndTheAppFindsThemThroughHistory() throws {
        try trips("add", "Iceland", "--destination", "Reykjavík", "--start", "2026-06-01", "--end", "2026-06-05")
        try trips("add", "Japan", "--destination", "Kyoto", "--start", "2026-09-10", "--end", "2026-09-20")
        #expect(try unreadTrips() == [], "the app's own changes are not unread")

        // Round 1: the widget confirms one trip.
        try trips("confirm", "Iceland")
        #expect(try unreadTrips() == ["Iceland"])
        #expect(try unreadTrips() == [], "a second run finds nothing: the token was saved")
        let token = try Data(contentsOf: directory.appending(path: ".trips/trips.json.app-token"))
        #expect(!token.isEmpty)

        // Round 2: two widget changes, one by another author the app does not badge.
        try trips("confirm", "Japan")
        try trips("confirm", "Iceland", "--author", "watch")
        #expect(try unreadTrips() == ["Japan"])

        // Round 3: a deleted trip shows its tombstone in history.
        try trips("delete", "Japan")
        let history = try trips("history").lines.joined(separator: "\n")
        #expect(history.contains("tombstone: name=Japan"), "\(history)")
        #expect(history.contains("~ Trip 'Iceland'(livingAccommodation)"), "updates named by attribute: \(history)")

        // Round 4: history pruned past the app's token: a clear message and a fresh start.
        try trips("confirm", "Iceland")
        try trips("prune", "--all")
        let expired = try trips("unread")
        #expect(expired.errorText.contains("expired"), "stderr: \(expired.errorText)")
        #expect(expired.lines == ["No unread changes."])
        try trips("add", "Norway", "--destination", "Tromsø", "--start", "2026-08-01", "--end", "2026-08-09")
        try trips("confirm", "Norway")
        #expect(try unreadTrips() == ["Norway"], "after the fresh start, new widget changes count again")

        let json = try trips("list", "--json").lines.joined()
        let listed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: String]]
        #expect(listed?.map { $0["name"] } == ["Iceland", "Norway"])
    }

    /// `show NAME --json` in a process of its own: what the trip holds, as that process loaded it.
    func shown(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let json = try trips("show", name, "--json", sourceLocation: sourceLocation).lines.joined()
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], sourceLocation: sourceLocation)
    }

    func bucketListTitles(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        (try shown(name, sourceLocation: sourceLocation)["bucketList"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    /// The unread table's rows, trip and change.
    func unreadRows() throws -> [[String]] {
        try trips("unread", "--json").lines.joined().data(using: .utf8).flatMap {
            try JSONSerialization.jsonObject(with: $0) as? [[String: String]]
        }?.map { [$0["trip"] ?? "", $0["change"] ?? ""] } ?? []
    }

    @Test func theDemoBadgesTheTripWhoseAccommodationTheWidgetConfirmed() throws {
        let demo = try trips("demo").lines
        let table = demo.drop { !$0.hasPrefix("The app's unread trips") }.dropFirst()
        #expect(Array(table) == ["Trip     Change", "Iceland  accommodation confirmed"], "\(demo)")
        #expect(try unreadTrips() == [], "the demo's unread run saved the token")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [".trips"],
                "the store, its activity log, the token and the consumers file are all in .trips (which .gitignore lists)")

        let json = try trips("list", "--json").lines.joined()
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: String]])
        #expect(listed.map { $0["name"] ?? "" } == ["Iceland", "Japan", "Portugal"])
        #expect(listed.map { $0["accommodation"] ?? "" } == ["Hotel Reykjavík (confirmed)", "-", "-"])
        #expect(listed.map { $0["items"] ?? "" } == ["2", "2", "2"], "each demo trip has two bucket-list items")

        // A second round confirms the next trip, found again through the stay's trip.
        try trips("confirm", "Japan")
        #expect(try unreadRows() == [["Japan", "accommodation confirmed"]])
    }

    @Test func aBucketListAndAccommodationSurviveIntoTheNextProcess() throws {
        try trips("add", "Iceland", "--destination", "Reykjavík", "--start", "2026-06-01", "--end", "2026-06-05")
        // Each item in a process of its own, set from the item's side (`item.trip`).
        try trips("item", "Iceland", "--title", "Geysir", "--notes", "Strokkur erupts every few minutes")
        try trips("item", "Iceland", "--title", "Glacier")
        var iceland = try shown("Iceland")
        #expect(iceland["accommodation"] is NSNull, "no accommodation yet")
        #expect(try bucketListTitles("Iceland") == ["Geysir", "Glacier"], "the items, in the order added")

        try trips("confirm", "Iceland")
        iceland = try shown("Iceland")
        let stay = try #require(iceland["accommodation"] as? [String: Any], "\(iceland)")
        #expect(stay["placeName"] as? String == "Hotel Reykjavík")
        #expect(stay["isConfirmed"] as? Bool == true)
        let items = try #require(iceland["bucketList"] as? [[String: Any]])
        #expect(items.map { $0["title"] as? String } == ["Geysir", "Glacier"], "confirming kept the bucket list")
        #expect(items.first?["notes"] as? String == "Strokkur erupts every few minutes")

        // Confirming again changes nothing: the trip keeps its one accommodation.
        try trips("confirm", "Iceland")
        #expect((try shown("Iceland")["accommodation"] as? [String: Any])?["placeName"] as? String == "Hotel Reykjavík")
    }

    @Test func addingATripAgainKeepsItsBucketListAndAccommodation() throws {
        try trips("add", "Iceland", "--destination", "Reykjavík", "--start", "2026-06-01", "--end", "2026-06-05")
        try trips("item", "Iceland", "--title", "Geysir")
        try trips("confirm", "Iceland")
        // Same name and dates: the unique constraint makes it the same trip.
        try trips("add", "Iceland", "--destination", "Reykjavík and the south coast", "--start", "2026-06-01", "--end", "2026-06-05")
        let iceland = try shown("Iceland")
        #expect(iceland["destination"] as? String == "Reykjavík and the south coast")
        #expect(try bucketListTitles("Iceland") == ["Geysir"])
        #expect((iceland["accommodation"] as? [String: Any])?["placeName"] as? String == "Hotel Reykjavík")
        // And the trip still owns them: deleting it deletes them.
        try trips("delete", "Iceland")
        let app = try TripsApp(arguments: Arguments(["--store", "json:" + directory.appending(path: ".trips/trips.json").path, "list"]))
        let context = ModelContext(app.container)
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<LivingAccommodation>()) == 0)
    }

    @Test func aWidgetChangeToTheBucketListBadgesItsTrip() throws {
        try trips("add", "Iceland", "--destination", "Reykjavík", "--start", "2026-06-01", "--end", "2026-06-05")
        try trips("add", "Japan", "--destination", "Kyoto", "--start", "2026-09-10", "--end", "2026-09-20")
        #expect(try unreadTrips() == [])
        try trips("item", "Japan", "--title", "Tea ceremony", "--author", "widget")
        #expect(try unreadRows() == [["Japan", "bucket list changed"]])
        // A new accommodation is an insert and the trip's relationship update: badged once.
        try trips("confirm", "Iceland")
        try trips("confirm", "Japan")
        #expect(try unreadRows() == [["Iceland", "accommodation confirmed"], ["Japan", "accommodation confirmed"]])
    }

    @Test func deletingATripDeletesItsBucketListAndAccommodationInOneTransaction() throws {
        try trips("add", "Iceland", "--destination", "Reykjavík", "--start", "2026-06-01", "--end", "2026-06-05")
        try trips("add", "Japan", "--destination", "Kyoto", "--start", "2026-09-10", "--end", "2026-09-20")
        try trips("item", "Iceland", "--title", "Geysir")
        try trips("item", "Japan", "--title", "Fushimi Inari")
        try trips("item", "Japan", "--title", "Tea ceremony")
        try trips("confirm", "Japan")
        try trips("confirm", "Iceland")

        try trips("delete", "Japan")
        let missing = try trips("show", "Japan", expectStatus: 1)
        #expect(missing.errorText.contains("no trip named 'Japan'"))
        #expect(try bucketListTitles("Iceland") == ["Geysir"], "the other trip keeps its items")
        #expect((try shown("Iceland")["accommodation"] as? [String: Any])?["placeName"] as? String == "Hotel Reykjavík")

        // The trip, its two items and its accommodation went in one transaction of the trips store.
        let deletion = try #require(try trips("history").lines.last { $0.hasPrefix("trips#") && $0.contains("- Trip") })
        #expect(deletion.contains("tombstone: name=Japan"), "\(deletion)")
        #expect(deletion.contains("- BucketListItem (tombstone: title=Fushimi Inari"), "\(deletion)")
        #expect(deletion.contains("- BucketListItem (tombstone: title=Tea ceremony"), "\(deletion)")
        #expect(deletion.contains("- LivingAccommodation (tombstone: placeName=Hotel Kyoto, trip="), "\(deletion)")
        #expect(deletion.contains("- BucketListItem (tombstone: title=Tea ceremony, trip="),
                "a relationship marked .preserveValueOnDeletion is in the tombstone: \(deletion)")
        #expect(!deletion.contains("Geysir") && !deletion.contains("Hotel Reykjavík"), "\(deletion)")

        // And the store itself, read in this process through the app's own container: only
        // Iceland's item and accommodation are left.
        let app = try TripsApp(arguments: Arguments(["--store", "json:" + directory.appending(path: ".trips/trips.json").path, "list"]))
        let context = ModelContext(app.container)
        #expect(try context.fetch(FetchDescriptor<BucketListItem>()).map(\.title) == ["Geysir"])
        #expect(try context.fetch(FetchDescriptor<LivingAccommodation>()).map(\.placeName) == ["Hotel Reykjavík"])
        #expect(try context.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Iceland"])
    }

    @Test func mistakesAreOneLineAndANonZeroExit() throws {
        let unknown = try trips("fly", expectStatus: 2)
        #expect(unknown.errorText.hasPrefix("trips: unknown command 'fly'"))
        let scheme = try trips("--store", "xml:trips.xml", "list", expectStatus: 1)
        #expect(scheme.errorText.contains("Unknown store scheme 'xml'") && scheme.errorText.contains("json:PATH"))
        let missing = try trips("confirm", "Nowhere", expectStatus: 1)
        #expect(missing.errorText == "trips: there is no trip named 'Nowhere' (see `trips list`)\n")
        let insertOnly = try ChildProcess(["--store", "log:readings", "delete", "Anything"], executable: "trips", directory: directory)
        #expect(insertOnly.finish() == 1)
    }

    @Test func theStoreComesFromTheEnvironment() throws {
        let child = try ChildProcess(["add", "Oslo", "--destination", "Oslo", "--start", "2026-01-01", "--end", "2026-01-02"],
                                     executable: "trips", directory: directory, environment: ["TRIPS_STORE": "json:elsewhere.json"])
        #expect(child.finish() == 0)
        #expect(FileManager.default.fileExists(atPath: directory.appending(path: "elsewhere.json").path))
    }
}

/// A store written by the first release of `trips` (Tests/Fixtures/trips-release-1), opened by
/// this one, whose models renamed `BucketListItem.details` to `notes` and added `Trip.isFavorite`.
@Suite struct TripsMigrationTests {
    let directory: URL
    init() throws {
        directory = try temporaryDirectory()
        let fixture = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Fixtures/trips-release-1")
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.path) where name != "README.md" {
            try FileManager.default.copyItem(at: fixture.appending(path: name), to: directory.appending(path: name))
        }
    }

    @discardableResult
    func trips(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> ChildProcess {
        // The first release kept its store in the working directory, as trips.json.
        let child = try ChildProcess(["--store", "json:trips.json"] + arguments, executable: "trips", directory: directory)
        let exit = child.finish()
        #expect(exit == 0, "trips \(arguments.joined(separator: " ")): exit \(exit), stderr: \(child.errorText)", sourceLocation: sourceLocation)
        return child
    }

    @Test func aStoreOfTheFirstReleaseOpensWithItsDataUnderTheNewNames() throws {
        let before = try String(contentsOf: directory.appending(path: "trips.json"), encoding: .utf8)
        #expect(before.contains("\"version\":2") && !before.contains("\"schema\""), "the fixture is a first-release store")

        let show = try trips("show", "Iceland", "--json").lines.joined()
        let iceland = try #require(try JSONSerialization.jsonObject(with: Data(show.utf8)) as? [String: Any])
        let items = try #require(iceland["bucketList"] as? [[String: Any]])
        #expect(items.compactMap { $0["notes"] as? String }.sorted() == ["book the 10:00 slot", "in Reykjavík", "in Reykjavík"],
                "the items' details, now their notes")
        #expect(iceland["isFavorite"] as? Bool == false, "the new attribute's default")
        #expect(try trips("list").lines.count == 4, "the three trips of the first release, and the header")

        let after = try String(contentsOf: directory.appending(path: "trips.json"), encoding: .utf8)
        #expect(after.contains("\"version\":3") && after.contains("\"version\":{\"major\":3"), "the store records version 3.0.0 (the release that adds the sync models)")
        #expect(!after.contains("\"details\""), "no row keeps the old name")

        // The new release works on it, and history from before the migration still reads.
        try trips("favorite", "Iceland")
        #expect(try trips("list").lines.contains { $0.hasPrefix("Iceland *") })
        let history = try trips("history").lines
        #expect(history.filter { $0.hasPrefix("trips#") }.count == 6, "the first release's five transactions and the favourite: \(history)")
        try trips("confirm", "Japan")
        #expect(try trips("unread").lines.contains { $0.hasPrefix("Japan") }, "the first release's saved token still reads")
    }
}
