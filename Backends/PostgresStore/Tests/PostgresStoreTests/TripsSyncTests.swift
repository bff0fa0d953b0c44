import Foundation
import Testing

/// `trips sync` (issue 32): two `trips` processes, each with its own JSON store, sync through one
/// PostgreSQL server; the second sees the first's trip, and its unread badges show the first's
/// widget change.
@Suite("trips sync through PostgreSQL", .enabled(if: TestServer.isConfigured))
struct TripsSyncTests {
    /// Runs `trips` to its end; its output and exit status.
    static func trips(_ arguments: [String]) throws -> (output: String, status: Int32) {
        let process = try HelperProcess(arguments, executable: "trips")
        var lines: [String] = []
        while let line = process.nextLine() { lines.append(line) }
        return (lines.joined(separator: "\n"), process.wait())
    }

    @Test("Two trips processes converge through the server; the badge crosses over", .timeLimit(.minutes(3)))
    func twoTripsProcesses() throws {
        let url = try #require(TestServer.url)
        let remote = url + "?schema=" + TestServer.freshNamespace()
        let folder = FileManager.default.temporaryDirectory.appending(path: "trips-sync-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = ["--store", "json:" + folder.appending(path: "first.json").path]
        let second = ["--store", "json:" + folder.appending(path: "second.json").path]

        let added = try Self.trips(first + ["add", "Norway", "--destination", "Tromsø", "--start", "2026-08-01", "--end", "2026-08-09"])
        #expect(added.status == 0, "\(added.output)")
        let firstPush = try Self.trips(first + ["sync", "--remote", remote])
        #expect(firstPush.status == 0, "\(firstPush.output)")
        #expect(firstPush.output.contains("pushed 1,"), "\(firstPush.output)")
        let firstPull = try Self.trips(second + ["sync", "--remote", remote])
        #expect(firstPull.output.contains("pulled 1 "), "\(firstPull.output)")
        let listed = try Self.trips(second + ["list"])
        #expect(listed.output.contains("Norway") && listed.output.contains("Tromsø"), "\(listed.output)")
        // The second app has read everything so far: no badge yet.
        #expect(try Self.trips(second + ["unread"]).output.contains("No unread changes."))

        // The first process's widget confirms the stay; the second sees the badge after a sync.
        #expect(try Self.trips(first + ["confirm", "Norway"]).status == 0)
        #expect(try Self.trips(first + ["sync", "--remote", remote]).output.contains("pushed 1,"))
        let secondPull = try Self.trips(second + ["sync", "--remote", remote])
        #expect(secondPull.output.contains("pulled 1 "), "\(secondPull.output)")
        let unread = try Self.trips(second + ["unread"])
        #expect(unread.output.contains("Norway") && unread.output.contains("accommodation confirmed"), "\(unread.output)")
        let shown = try Self.trips(second + ["show", "Norway"])
        #expect(shown.output.contains("(confirmed)"), "\(shown.output)")
        // And back: the second's change reaches the first.
        #expect(try Self.trips(second + ["favorite", "Norway"]).status == 0)
        #expect(try Self.trips(second + ["sync", "--remote", remote]).status == 0)
        #expect(try Self.trips(first + ["sync", "--remote", remote]).status == 0)
        #expect(try Self.trips(first + ["list"]).output.contains("Norway *"))
    }
}
