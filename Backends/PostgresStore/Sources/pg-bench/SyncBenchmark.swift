import DataStores
import Foundation
import JSONStore
import PostgresStore
import StoreSync

/// Issue 32's figures: `count` one-attribute changes, one local (JSON) transaction each,
/// replicated to a PostgresStore and from it to a second local replica, beside the same changes
/// saved directly to a PostgresStore in one transaction each; then the long-running mode's rate.
struct SyncBenchmark {
    let server: PostgresStoreConfiguration
    let count: Int
    /// The models the changes touch, one attribute (`value`) each in turn.
    let models = 100
    static let schema = Schema([BenchItem.self] + Replicator.models)

    func run() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "pg-bench-sync-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func local(_ name: String) throws -> ModelContainer {
            try ModelContainer(for: Self.schema, configurations: [JSONStoreConfiguration(url: folder.appending(path: name + ".json"), schema: Self.schema)])
        }
        func remote(_ namespace: String) throws -> ModelContainer {
            var configuration = server
            configuration.namespace = namespace
            configuration.schema = Self.schema
            return try ModelContainer(for: Self.schema, configurations: [configuration])
        }
        let syncNamespace = server.namespace + "_sync", directNamespace = server.namespace + "_direct"
        let source = try local("source"), destination = try local("destination")
        let phases = PhaseTimes()
        let timed = SyncConfiguration(phaseHandler: { phases.enter($0) })
        let push = try Replicator(local: source, remote: try remote(syncNamespace), configuration: timed)
        let pull = try Replicator(local: destination, remote: try remote(syncNamespace), configuration: timed)
        let direct = try remote(directNamespace)

        // The same models on every side before the timed part.
        try insertModels(into: source)
        try blocking { try await push.sync() }
        try blocking { try await pull.sync() }
        try insertModels(into: direct)

        try change(source, times: count)
        phases.reset()
        let pushed = try milliseconds { _ = try blocking { try await push.sync() } }
        let pushPhases = phases.reset()
        let pulled = try milliseconds { _ = try blocking { try await pull.sync() } }
        let pullPhases = phases.reset()
        let saved = try milliseconds { try change(direct, times: count) }
        guard try values(destination) == values(source), try values(direct) == values(source) else {
            throw DataStoreError(.corruptStore, "the replicas differ after the benchmark's rounds")
        }
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        print("sync (\(build) build): \(count) one-attribute changes, one local JSON transaction each, milliseconds")
        print(String(format: "  push local → PostgresStore %10.1f   direct saves %10.1f   %6.2fx (goal ≤ 1.50x)", pushed, saved, pushed / saved))
        print(String(format: "  pull PostgresStore → local %10.1f   direct saves %10.1f   %6.2fx", pulled, saved, pulled / saved))
        print("  push by phase: \(pushPhases)")
        print("  pull by phase: \(pullPhases)")

        // The long-running mode's rate (SyncBenchmark+Run.swift).
        try longRunningRate(push, remote: try remote(syncNamespace), source: source)

    }

    private func insertModels(into container: ModelContainer) throws {
        let context = ModelContext(container)
        for index in 0..<models { context.insert(BenchItem(name: "item \(index)", category: index % 10, value: 0)) }
        try context.save()
    }

    /// `times` saves, each changing `value` of one model (in turn).
    func change(_ container: ModelContainer, times: Int) throws {
        let context = ModelContext(container)
        let items = try context.fetch(FetchDescriptor<BenchItem>(sortBy: [SortDescriptor(\.name)]))
        for index in 0..<times {
            items[index % items.count].value += 1
            try context.save()
        }
    }

    private func values(_ container: ModelContainer) throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try ModelContext(container).fetch(FetchDescriptor<BenchItem>()).map { ($0.name, $0.value) })
    }

    private func milliseconds(_ body: () throws -> Void) throws -> Double {
        try medianMilliseconds(1, body)
    }
}

/// The time a replicator spends in each phase (from entering it to entering the next, or to the
/// end of the timed round), and how often it enters it: where a round's time goes.
final class PhaseTimes: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var current: (phase: SyncPhase, since: ContinuousClock.Instant)?
    private var spent: [SyncPhase: (time: Duration, entries: Int)] = [:]

    func enter(_ phase: SyncPhase) {
        lock.withLock {
            close()
            current = (phase, .now)
            spent[phase, default: (.zero, 0)].entries += 1
        }
    }

    /// What was spent since the last reset, in milliseconds per phase; starts again.
    @discardableResult
    func reset() -> String {
        lock.withLock {
            close()
            current = nil
            defer { spent = [:] }
            return SyncPhase.allCases.compactMap { phase in
                spent[phase].map { spent in
                    let milliseconds = Double(spent.time.components.seconds) * 1000 + Double(spent.time.components.attoseconds) / 1e15
                    return "\(phase.rawValue) " + String(format: "%.1f ms (%d×)", milliseconds, spent.entries)
                }
            }.joined(separator: ", ")
        }
    }

    private func close() {
        if let current { spent[current.phase, default: (.zero, 0)].time += .now - current.since }
    }
}

/// Runs async work from this synchronous program and waits for it.
@discardableResult
func blocking<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
    let outcome = OutcomeBox<Value>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { outcome.set(.success(try await work())) } catch { outcome.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    return try outcome.get()
}

/// The result of work on another thread.
final class OutcomeBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is set once before the semaphore is signalled, and read after the wait.
    private let lock = NSLock()
    private var result: Result<Value, any Error>?
    func set(_ value: Result<Value, any Error>) { lock.withLock { result = value } }
    func get() throws -> Value { try lock.withLock { result }!.get() }
}
