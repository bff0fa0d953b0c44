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

    /// Runs `pg_ctl` with `arguments` on the test server and waits for it. Through `posix_spawn`
    /// and `waitpid`, not Foundation's `Process`, whose `waitUntilExit()` was seen never to return
    /// after `pg_ctl start` (the server it leaves behind is a grandchild).
    static func serverControl(_ arguments: String) throws {
        let command = "\(try #require(control)) \(arguments) >/dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        try #require(spawned == 0, "could not run pg_ctl: \(spawned)")
        var status: Int32 = 0
        var waited: pid_t
        repeat { waited = waitpid(pid, &status, 0) } while waited == -1 && errno == EINTR
        // ECHILD: another waiter reaped it; the next step finds out whether the server is there.
        try #require(waited == pid ? status == 0 : errno == ECHILD, "pg_ctl \(arguments) failed (status \(status))")
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

        print("restart test: \(acknowledged.count) saves acknowledged; stopping the server")
        try Self.serverControl("stop -m fast")
        print("restart test: server stopped")
        var failure: String?
        while failure == nil, let line = read() {
            if line.hasPrefix("error ") { failure = line }
        }
        let message = try #require(failure, "no save failed while the server was down")
        #expect(message.contains("PostgreSQL server at \(configuration.host):\(configuration.port)"), "\(message)")
        // The connection's end is told in whichever words the client met it in ("connection
        // closed", "Connection reset by peer" when a prepared statement's answer was cut off).
        #expect(message.contains("ioFailure") || message.lowercased().contains("connect") || message.contains("closed"), "\(message)")
        let acknowledgedBeforeRestart = acknowledged.count

        print("restart test: first failure while down: \(message); \(acknowledgedBeforeRestart) acknowledged; starting the server")
        try Self.serverControl("start -w -t 60")
        print("restart test: server started")
        // The writer retries at once (a refused connection fails fast), so lines keep coming; a
        // deadline, checked per line, ends the wait if it never recovers.
        let deadline = ContinuousClock.now + .seconds(60)
        while acknowledged.count < acknowledgedBeforeRestart + 10, ContinuousClock.now < deadline, read() != nil {}
        kill(writer.process.processIdentifier, SIGKILL)   // it inherits a mask that blocks SIGTERM
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
