import DataStores
import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// `PostgresStore.withExclusiveAccess`: one holder at a time across processes, released when
/// the holder ends, dies, or loses its connection; a save made after the access was lost fails.
@Suite("Exclusive access", .enabled(if: TestServer.isConfigured))
struct ExclusiveAccessTests {
    /// Waits (bounded) until a process waits for the exclusive access of `namespace` on the server.
    static func awaitWaiter(_ admin: AdminConnection, namespace: String) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try admin.exclusiveLockProcesses(namespace: namespace, granted: false).isEmpty {
            try #require(ContinuousClock.now < deadline, "the second process never waited for the access")
            Thread.sleep(forTimeInterval: 0.01)   // a poll of the server's lock table, bounded by the deadline
        }
    }

    /// Two processes each read a counter and save it plus one inside the access. The first holds
    /// the access (waiting for the test) while the second is seen waiting for it on the server;
    /// so the second reads the first's save: no lost update.
    @Test("A second process waits for the access, then reads the first's save", .timeLimit(.minutes(2)))
    func secondProcessWaits() throws {
        let url = try #require(TestServer.url)
        let configuration = try TestServer.configuration()
        try Self.seedCounter(url, configuration.namespace)
        let admin = try AdminConnection(configuration)

        let first = try Self.incrementer(url, configuration.namespace)
        #expect(first.nextLine() == "read 0")
        let second = try Self.incrementer(url, configuration.namespace)
        try Self.awaitWaiter(admin, namespace: configuration.namespace)
        try first.closeInput()
        #expect(first.nextLine() == "saved")
        #expect(first.wait() == 0)
        #expect(second.nextLine() == "read 1")
        try second.closeInput()
        #expect(second.nextLine() == "saved")
        #expect(second.wait() == 0)
        #expect(try Self.counter(url, configuration.namespace) == 2)
    }

    /// The negative control of the test above: without the access the second process reads
    /// the counter while the first holds it, and one increment is lost.
    @Test("Negative control: without the access, the second process reads before the first saves")
    func withoutAccessTheUpdateIsLost() throws {
        let url = try #require(TestServer.url)
        let configuration = try TestServer.configuration()
        try Self.seedCounter(url, configuration.namespace)

        let first = try Self.incrementer(url, configuration.namespace, withoutAccess: true)
        #expect(first.nextLine() == "read 0")
        let second = try Self.incrementer(url, configuration.namespace, withoutAccess: true)
        #expect(second.nextLine() == "read 0")
        try first.closeInput()
        #expect(first.nextLine() == "saved")
        try second.closeInput()
        #expect(second.nextLine() == "saved")
        #expect(first.wait() == 0)
        #expect(second.wait() == 0)
        #expect(try Self.counter(url, configuration.namespace) == 1)
    }

    /// A holder killed while it holds the access releases it: the next process takes it.
    @Test("The access of a killed process is released", .timeLimit(.minutes(2)))
    func killedHolderReleases() throws {
        let url = try #require(TestServer.url)
        let configuration = try TestServer.configuration()
        try Self.seedCounter(url, configuration.namespace)

        let first = try Self.incrementer(url, configuration.namespace)
        #expect(first.nextLine() == "read 0")
        kill(first.process.processIdentifier, SIGKILL)
        _ = first.wait()
        let second = try Self.incrementer(url, configuration.namespace)
        #expect(second.nextLine() == "read 0")
        try second.closeInput()
        #expect(second.nextLine() == "saved")
        #expect(second.wait() == 0)
        #expect(try Self.counter(url, configuration.namespace) == 1)
    }

    /// The lock's connection is terminated while the body runs: another holder takes the access
    /// and saves, and the first holder's save afterwards fails instead of overwriting it; the
    /// first store takes the access again afterwards (on a new connection).
    @Test("A save after the access's connection died fails; the access is taken again later", .timeLimit(.minutes(2)))
    func lostAccessFencesSaves() throws {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(PGNote.self)
        let admin = try AdminConnection(configuration)
        let firstContainer = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        let secondContainer = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        let first = try #require(firstContainer.stores.first as? PostgresStore)
        let second = try #require(secondContainer.stores.first as? PostgresStore)
        let seedContext = ModelContext(firstContainer)
        seedContext.insert(PGNote(title: "counter", rank: 0))
        try seedContext.save()

        func increment(_ container: ModelContainer, by step: Int) throws {
            let context = ModelContext(container)
            let note = try #require(try context.fetch(FetchDescriptor<PGNote>()).first)
            note.rank += step
            try context.save()
        }
        var fenced: (any Error)?
        try first.withExclusiveAccess {
            // The first holder reads (rank 0), then loses its lock's connection.
            let context = ModelContext(firstContainer)
            let stale = try #require(try context.fetch(FetchDescriptor<PGNote>()).first)
            let holders = try admin.exclusiveLockProcesses(namespace: configuration.namespace, granted: true)
            #expect(holders.count == 1)
            for holder in holders { try admin.terminate(process: holder) }
            try second.withExclusiveAccess { try increment(secondContainer, by: 10) }
            // Saving rank 1 now would overwrite the second holder's 10.
            stale.rank += 1
            do { try context.save() } catch { fenced = error }
        }
        let error = try #require(fenced as? DataStoreError, "the save after the access was lost was acknowledged")
        #expect(error.code == .ioFailure)
        #expect(error.message.contains("exclusive access"), "\(error.message)")
        try first.withExclusiveAccess { try increment(firstContainer, by: 100) }
        #expect(try ModelContext(secondContainer).fetch(FetchDescriptor<PGNote>()).map(\.rank) == [110])
    }

    /// Saves outside the access are not checked, and the access ends when the body throws.
    @Test("A body that throws releases the access; saves outside it are not checked")
    func throwingBodyReleases() throws {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(PGNote.self)
        let admin = try AdminConnection(configuration)
        let container = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        let store = try #require(container.stores.first as? PostgresStore)
        struct Refusal: Error {}
        #expect(throws: Refusal.self) { try store.withExclusiveAccess { throw Refusal() } }
        #expect(try admin.exclusiveLockProcesses(namespace: configuration.namespace, granted: true).isEmpty)
        let context = ModelContext(container)
        context.insert(PGNote(title: "outside", rank: 1))
        try context.save()
        let nested = try store.withExclusiveAccess { try store.withExclusiveAccess { 7 } }
        #expect(nested == 7)
    }

    /// Saves the counter (entry w0-0, sequence 0) in a process of its own.
    static func seedCounter(_ url: String, _ namespace: String) throws {
        let seed = try HelperProcess(["write", url, namespace, "0", "1"])
        #expect(seed.nextLine() == "saved 1")
        #expect(seed.wait() == 0)
    }

    /// Starts an `exclusive-increment` helper and reads its "taking" line.
    static func incrementer(_ url: String, _ namespace: String, withoutAccess: Bool = false) throws -> HelperProcess {
        let helper = try HelperProcess(["exclusive-increment", url, namespace] + (withoutAccess ? ["--without-access"] : []))
        #expect(helper.nextLine() == "taking")
        return helper
    }

    /// The counter (entry w0-0's sequence) as `pg-store-helper show` prints it.
    static func counter(_ url: String, _ namespace: String) throws -> Int? {
        let show = try HelperProcess(["show", url, namespace])
        var sequence: Int?
        while let line = show.nextLine() {
            let words = line.split(separator: " ")
            if words.first == "w0-0", let last = words.last { sequence = Int(last) }
        }
        _ = show.wait()
        return sequence
    }
}
