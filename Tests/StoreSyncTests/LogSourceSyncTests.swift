import DataStores
import Foundation
import JSONStore
import LogStore
import MemoryStore
@testable import StoreSync
import StoreTestSupport
import Testing

/// A reading a device logs: inserted once, never updated.
@Model final class SyncReading {
    var id = UUID()
    var sensor: String
    var value: Double
    var takenAt: Date
    init(sensor: String, value: Double, takenAt: Date) {
        self.sensor = sensor
        self.value = value
        self.takenAt = takenAt
    }
}

/// A log store as a push-only source: its records reach the remote exactly once, dated by their
/// transaction, and nothing is ever written into the log.
@Suite struct LogSourceSyncTests {
    /// The remote's (and a pulling replica's) schema; the log's lists the reading only.
    static let schema = Schema([SyncReading.self] + Replicator.models)

    struct World {
        let directory: URL
        let log: ModelContainer
        let remote: ModelContainer

        init(_ backend: SyncBackend, remote makeRemote: ((URL) throws -> ModelContainer)? = nil) throws {
            directory = try temporaryDirectory()
            let logSchema = Schema([SyncReading.self])
            log = try ModelContainer(for: logSchema, configurations: [
                LogStoreConfiguration(directory: directory.appending(path: "readings.log"), schema: logSchema)])
            remote = try makeRemote?(directory) ?? SyncWorld.container(backend, name: "server", in: directory, schema: LogSourceSyncTests.schema)
        }

        /// Logs `count` readings in one save; returns their identifiers.
        @discardableResult
        func logReadings(_ count: Int, sensor: String = "s") throws -> [PersistentIdentifier] {
            let context = ModelContext(log)
            let readings = (0..<count).map { SyncReading(sensor: sensor, value: Double($0) + 0.25, takenAt: Date(timeIntervalSince1970: Double($0))) }
            for reading in readings { context.insert(reading) }
            try context.save()
            return readings.map(\.persistentModelID)
        }

        /// A replica of its own that pulls from the remote.
        func puller(_ backend: SyncBackend) throws -> Replicator {
            let container = try SyncWorld.container(backend, name: "puller", in: directory, schema: LogSourceSyncTests.schema)
            return try Replicator(local: container, remote: remote)
        }
    }

    /// Every reading of a container, as text, in a stable order.
    static func readings(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<SyncReading>()).map {
            "\($0.id) \($0.sensor) \($0.value) \($0.takenAt.timeIntervalSince1970)"
        }.sorted()
    }

    /// The origin transactions the remote's replicator saves name, as "origin/n" (or "origin/first-last" for a batch), in order.
    static func appliedOrigins(_ container: ModelContainer) throws -> [String] {
        try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).compactMap { transaction in
            SyncRound.origin(of: transaction).flatMap { SyncRound.isReplicatorAuthored(transaction) ? $0.first == $0.last ? "\($0.origin)/\($0.last)" : "\($0.origin)/\($0.first)-\($0.last)" : nil }
        }
    }

    static func logIdentifier(_ world: World) throws -> String { try #require(world.log.stores.first).identifier }

    /// A push that never saved its position would push the same records forever: the time limit ends it.
    @Test(.timeLimit(.minutes(1)), arguments: SyncBackend.allCases)
    func aLogPushesEveryRecordOnceAndAnotherReplicaPullsThem(_ backend: SyncBackend) async throws {
        let world = try World(backend)
        for _ in 0..<4 { try world.logReadings(5) }
        let replicator = try Replicator(local: world.log, remote: world.remote)
        #expect(replicator.isPushOnly)
        let logBefore = try world.log.currentHistoryToken()

        let report = try await replicator.sync()
        #expect(report.pushedTransactions == 4)
        #expect(report.pulledTransactions == 0)
        #expect(report.appliedChanges == 20)
        #expect(try Self.readings(world.remote) == Self.readings(world.log))
        #expect(try Self.readings(world.remote).count == 20)
        // Nothing written into the log: no clock records, no state row, no position.
        #expect(try world.log.currentHistoryToken() == logBefore)

        // Exactly once: an idle round pushes nothing; a new record is pushed alone.
        #expect(try await replicator.sync().pushedTransactions == 0)
        try world.logReadings(1, sensor: "later")
        #expect(try await replicator.sync().pushedTransactions == 1)
        let origin = try Self.logIdentifier(world)
        #expect(try Self.appliedOrigins(world.remote) == (1...5).map { "\(origin)/\($0)" })

        let puller = try world.puller(backend)
        let pulled = try await puller.sync()
        #expect(pulled.pulledTransactions == 5)
        #expect(try Self.readings(puller.local) == Self.readings(world.log))
    }

    /// Every value of a record takes its transaction's clock: the transaction's timestamp in
    /// milliseconds, counter 0, the log's identifier as the replica.
    @Test func eachRecordIsDatedByItsTransaction() async throws {
        let world = try World(.memory)
        let ids = try world.logReadings(2)
        let transaction = try #require(try world.log.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first)
        try await Replicator(local: world.log, remote: world.remote).sync()
        let expected = HybridLogicalTimestamp(milliseconds: Int64((transaction.timestamp.timeIntervalSince1970 * 1000).rounded(.down)),
                                              counter: 0, replica: try Self.logIdentifier(world))
        let remote = try SyncStore(world.remote, role: "remote")
        for id in ids {
            let clocks = try #require(try SyncStateRows.clocks(of: id, in: remote))
            #expect(clocks.incarnation == expected)
            #expect(Set(clocks.values.keys) == ["sensor", "value", "takenAt"])
            #expect(clocks.values.values.allSatisfy { $0.clock == expected })
        }
    }

    /// A push stopped before any of its remote saves (each a log transaction with its position)
    /// and retried applies every record once: each log transaction is named by exactly one remote
    /// save, at whichever save the interruption came.
    @Test(arguments: SyncBackend.allCases)
    func aPushInterruptedBetweenSavesAndRetriedAppliesEachRecordOnce(_ backend: SyncBackend) async throws {
        let transactions = 5
        for interrupted in 1...transactions {
            let world = try World(backend) { directory in
                let inner: any DataStoreConfiguration = backend == .memory
                    ? MemoryStoreConfiguration(name: "server-" + UUID().uuidString, schema: Self.schema)
                    : JSONStoreConfiguration(url: directory.appending(path: "server.json"), schema: Self.schema)
                return try ModelContainer(for: Self.schema, configurations: [FailingSaveStoreConfiguration(inner: inner)])
            }
            for _ in 0..<transactions { try world.logReadings(3) }
            let remote = try #require(world.remote.stores.first as? FailingSaveStore)
            let saves = Locked(0)
            let replicator = try Replicator(local: world.log, remote: world.remote, configuration: SyncConfiguration(phaseHandler: { phase in
                // The interrupted save fails before it writes anything, as a crash before it would.
                if phase == .pushSave, saves.withLock({ $0 += 1; return $0 }) == interrupted { remote.failsNextSave.withLock { $0 = true } }
            }, batchSize: 2))
            await #expect(throws: FailingSaveStore.Interrupted.self) { try await replicator.sync() }
            #expect(try Self.readings(world.remote).count == 3 * (interrupted - 1))

            let retried = try await replicator.sync()
            #expect(retried.pushedTransactions == transactions - interrupted + 1)
            let origin = try Self.logIdentifier(world)
            #expect(try Self.appliedOrigins(world.remote) == (1...transactions).map { "\(origin)/\($0)" }, "interrupted at save \(interrupted)")
            #expect(try Self.readings(world.remote) == Self.readings(world.log))
        }
    }

    /// The sample of the article's "A log store as a push-only source", as written there.
    @Test func theArticlesLogSampleUploadsReadings() async throws {
        let directory = try temporaryDirectory()
        let logURL = directory.appending(path: "readings.log"), serverURL = directory.appending(path: "server.json")
        let logSchema = Schema([SyncReading.self])
        let log = try ModelContainer(for: logSchema, configurations: [LogStoreConfiguration(directory: logURL, schema: logSchema)])
        let serverSchema = Schema([SyncReading.self] + Replicator.models)
        let server = try ModelContainer(for: serverSchema, configurations: [JSONStoreConfiguration(url: serverURL, schema: serverSchema)])
        let uploader = try Replicator(local: log, remote: server)
        let sent = try await uploader.sync()
        print("pushed \(sent.pushedTransactions) transactions, push only: \(uploader.isPushOnly)")

        #expect(sent.pushedTransactions == 0)
        let context = ModelContext(log)
        context.insert(SyncReading(sensor: "t", value: 21.5, takenAt: .now))
        try context.save()
        #expect(try await uploader.sync().pushedTransactions == 1)
        #expect(try ModelContext(server).fetch(FetchDescriptor<SyncReading>()).map(\.value) == [21.5])
    }

    /// Records dropped from the log (retention, `deleteHistory`) before a push reached them
    /// cannot be sent: the round pushes what is left after them and says so (`resynced`).
    @Test func recordsDroppedBeforeTheirPushAreSaidToBeMissed() async throws {
        let directory = try temporaryDirectory()
        let logSchema = Schema([SyncReading.self])
        // One transaction per segment, so that history (and records) drop one transaction at a time.
        let log = try ModelContainer(for: logSchema, configurations: [
            LogStoreConfiguration(directory: directory.appending(path: "readings.log"), schema: logSchema, segmentSize: 1)])
        let remote = try SyncWorld.container(.memory, name: "server", in: directory, schema: Self.schema)
        func logOne(_ sensor: String) throws {
            let context = ModelContext(log)
            context.insert(SyncReading(sensor: sensor, value: 1, takenAt: .now))
            try context.save()
        }
        try logOne("pushed 1")
        try logOne("pushed 2")
        let replicator = try Replicator(local: log, remote: remote)
        #expect(try await replicator.sync().resynced == false)
        for sensor in ["dropped 3", "left 4", "left 5"] { try logOne(sensor) }
        try log.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.transactionIdentifier <= 3 }))

        let report = try await replicator.sync()
        #expect(report.resynced)
        #expect(report.pushedTransactions == 2)
        let sensors = try ModelContext(remote).fetch(FetchDescriptor<SyncReading>()).map(\.sensor).sorted()
        #expect(sensors == ["left 4", "left 5", "pushed 1", "pushed 2"])
        #expect(try await replicator.sync() == SyncReport())
    }

    /// `run()` pushes a log's new record after its save.
    @Test(.timeLimit(.minutes(1))) func runPushesEachNewRecord() async throws {
        let world = try World(.memory)
        let replicator = try Replicator(local: world.log, remote: world.remote)
        var rounds = replicator.run().makeAsyncIterator()
        #expect(try await rounds.next()?.pushedTransactions == 0)
        try world.logReadings(1)
        var pushed = 0
        while pushed == 0, let report = try await rounds.next() { pushed += report.pushedTransactions }
        #expect(try Self.readings(world.remote) == Self.readings(world.log))
    }

    @Test func aPullIntoALogIsRefusedAndNothingMoves() async throws {
        let world = try World(.memory)
        try world.logReadings(2)
        let replicator = try Replicator(local: world.log, remote: world.remote)
        let logBefore = try world.log.currentHistoryToken(), remoteBefore = try world.remote.currentHistoryToken()
        let error = try await #require(throws: SyncError.self) { try await replicator.pull() }
        #expect(error.code == .unsupportedStore)
        #expect(error.message.contains("push-only"))
        #expect(try world.log.currentHistoryToken() == logBefore)
        #expect(try world.remote.currentHistoryToken() == remoteBefore)
    }

    @Test func aLogIsNoRemote() throws {
        let world = try World(.memory)
        let local = try SyncWorld.container(.memory, name: "local", in: world.directory, schema: Self.schema)
        let error = try #require(throws: SyncError.self) { try Replicator(local: local, remote: world.log) }
        #expect(error.code == .unsupportedStore)
        #expect(error.message.contains("keeps inserts only"))
    }

    /// A log restored from a backup (fewer transactions than the remote applied under its
    /// identity) would have its next records taken for pushed: the push refuses, nothing moves.
    @Test func aLogRestoredFromABackupIsRefused() async throws {
        let world = try World(.memory)
        try world.logReadings(1)
        let backup = world.directory.appending(path: "backup.log")
        try FileManager.default.copyItem(at: world.directory.appending(path: "readings.log"), to: backup)
        try world.logReadings(1)
        try await Replicator(local: world.log, remote: world.remote).sync()

        let logSchema = Schema([SyncReading.self])
        let restored = try ModelContainer(for: logSchema, configurations: [LogStoreConfiguration(directory: backup, schema: logSchema)])
        let remoteBefore = try world.remote.currentHistoryToken()
        let error = try await #require(throws: SyncError.self) { try await Replicator(local: restored, remote: world.remote).sync() }
        #expect(error.code == .historyTokenExpired)
        #expect(try world.remote.currentHistoryToken() == remoteBefore)
    }
}

/// Opens a store behind ``FailingSaveStore``.
struct FailingSaveStoreConfiguration: DataStoreConfiguration {
    typealias Store = FailingSaveStore
    var inner: any DataStoreConfiguration
    var name: String { inner.name }
    var schema: Schema? {
        get { inner.schema }
        set { inner.schema = newValue }
    }
    var allowsSave: Bool {
        get { inner.allowsSave }
        set { inner.allowsSave = newValue }
    }
}

/// A memory or JSON store whose next save fails, when armed, before it writes anything: a push
/// interrupted between two of its remote saves.
final class FailingSaveStore: DataStore, HistoryProviding, ExclusiveAccessProviding {
    typealias Snapshot = DefaultSnapshot
    struct Interrupted: Error {}

    let configuration: FailingSaveStoreConfiguration
    let failsNextSave = Locked(false)
    private let inner: any DataStore
    private let history: any HistoryProviding<DefaultHistoryTransaction>
    private let access: any ExclusiveAccessProviding

    init(_ configuration: FailingSaveStoreConfiguration) throws {
        self.configuration = configuration
        switch configuration.inner {
        case let memory as MemoryStoreConfiguration:
            let store = try MemoryStore(memory)
            (inner, history, access) = (store, store, store)
        case let json as JSONStoreConfiguration:
            let store = try JSONStore(json)
            (inner, history, access) = (store, store, store)
        default: throw DataStoreError(.invalidConfiguration, "FailingSaveStore wraps a memory or JSON store")
        }
    }

    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        func run<S: DataStore>(_ store: S) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
            let result = try store.fetch(request)
            return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: result.fetchedSnapshots.map {
                DefaultSnapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values)
            })
        }
        return try run(inner)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        if failsNextSave.withLock({ armed in defer { armed = false }; return armed }) { throw Interrupted() }
        func run<S: DataStore>(_ store: S) throws {
            _ = try store.save(DataStoreSaveChangesRequest(
                editingState: request.editingState,
                inserted: request.inserted.map { S.Snapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values) },
                updated: request.updated.map { S.Snapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values) },
                deleted: request.deleted.map { S.Snapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values) },
                updatedAttributes: request.updatedAttributes, toManyChanges: request.toManyChanges))
        }
        try run(inner)
        return DataStoreSaveChangesResult(for: identifier)
    }

    func erase() throws { try inner.erase() }
    func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try history.fetchHistory(descriptor)
    }
    func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws { try history.deleteHistory(descriptor) }
    func currentHistoryToken() throws -> DefaultHistoryToken? { try history.currentHistoryToken() }
    func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result { try access.withExclusiveAccess(body) }
}
