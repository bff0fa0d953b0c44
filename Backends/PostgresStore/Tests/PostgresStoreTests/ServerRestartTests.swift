import Foundation
import Testing

/// Whether the restart test runs: asked for, with a server it can stop and start.
let restartTestEnabled = TestServer.isConfigured && ProcessInfo.processInfo.environment["POSTGRES_CTL"] != nil
    && ProcessInfo.processInfo.environment["PG_RESTART_TEST"] == "1"

/// The server stops in the middle of a writer's saves and starts again: every acknowledged save
/// is kept, saves fail with a clear error while it is down, and the writer recovers by itself.
///
/// It stops the shared test server, so it runs only when asked (`PG_RESTART_TEST=1`, with
/// `POSTGRES_CTL` from Scripts/with-postgres.sh), alone: `.ci/run` runs it after the other tests.
@Suite("Server restart", .enabled(if: restartTestEnabled))
struct ServerRestartTests {
    static let control = ProcessInfo.processInfo.environment["POSTGRES_CTL"]

    /// Runs `pg_ctl` with `arguments` on the test server and waits for it.
    static func serverControl(_ arguments: String) throws {
        let process = Process()
        process.executableURL = URL(filePath: "/bin/sh")
        process.arguments = ["-c", "\(try #require(control)) \(arguments)"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pg_ctl \(arguments) failed")
    }

    @Test("Acknowledged saves survive a restart; a clear error while down; then recovery")
    func restartInTheMiddleOfSaves() async throws {
        let configuration = try TestServer.configuration()
        let url = try #require(TestServer.url)
        let writer = try HelperProcess(["save-until-killed", url, configuration.namespace])
        var acknowledged: [Int] = []
        func read() -> String? {
            guard let line = writer.nextLine() else { return nil }
            if line.hasPrefix("acked "), let number = Int(line.dropFirst(6)) { acknowledged.append(number) }
            return line
        }
        while acknowledged.count < 20, read() != nil {}
        try #require(acknowledged.count == 20, "the writer stopped before 20 saves")

        try Self.serverControl("stop -m fast")
        var failure: String?
        while failure == nil, let line = read() {
            if line.hasPrefix("error ") { failure = line }
        }
        let message = try #require(failure, "no save failed while the server was down")
        #expect(message.contains("PostgreSQL server at \(configuration.host):\(configuration.port)"), "\(message)")
        #expect(message.contains("ioFailure") || message.contains("connect") || message.contains("closed"), "\(message)")
        let acknowledgedBeforeRestart = acknowledged.count

        try Self.serverControl("start -w -t 60")
        while acknowledged.count < acknowledgedBeforeRestart + 10, read() != nil {}
        writer.process.terminate()
        _ = writer.wait()
        #expect(acknowledged.count >= acknowledgedBeforeRestart + 10, "the writer did not recover after the restart")

        // Every acknowledged save is in the table, and in history.
        let keys = Set(try await BadInputTests.strings(configuration, "SELECT _pk FROM \(configuration.namespace).\"HelperEntry\""))
        let missing = acknowledged.filter { !keys.contains("\"w0-\($0)\"") }
        #expect(missing.isEmpty, "acknowledged but lost: \(missing)")
        let transactions = try await BadInputTests.strings(configuration, "SELECT count(*)::text FROM \(configuration.namespace)._history")
        #expect(Int(transactions.first ?? "") ?? 0 >= acknowledged.count)
    }
}
