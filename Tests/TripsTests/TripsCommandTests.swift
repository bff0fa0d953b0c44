import Foundation
import StoreTestSupport
import Testing

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
        let token = try Data(contentsOf: directory.appending(path: "trips.json.app-token"))
        #expect(!token.isEmpty)

        // Round 2: two widget changes, one by another author the app does not badge.
        try trips("confirm", "Japan")
        try trips("confirm", "Iceland", "--author", "watch")
        #expect(try unreadTrips() == ["Japan"])

        // Round 3: a deleted trip shows its tombstone in history.
        try trips("delete", "Japan")
        let history = try trips("history").lines.joined(separator: "\n")
        #expect(history.contains("tombstone: name=Japan"), "\(history)")

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
