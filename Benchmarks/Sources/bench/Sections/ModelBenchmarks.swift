import Foundation
import StoreProtocol

/// What an `@Model` trip costs by itself (issue 29), each beside its reference in the same run:
///
/// - an attribute set and get (`trip.visits`) on ``Trip`` beside the same on ``ObservableTrip``,
///   an `@Observable` class: timed, and counted in instructions;
/// - encoding one trip into store values (`storedValues()`) and decoding one from them
///   (`init(storedValues:)`) beside the same on ``CodableTrip``, the trip written by hand and coded
///   through `Codable` as every model was before `@Model`: counted in instructions.
///
/// Instructions come from callgrind: the bench runs itself under `valgrind --tool=callgrind`
/// in its `--callgrind` mode (``runCallgrindMode(_:)``), collecting only inside the loop of the
/// operation, and divides by the operations done. Without valgrind those rows are left out, and
/// the progress says so.
func benchmarkModels(_ scale: Scale) throws -> [Result] {
    var results: [Result] = []
    let area = "@Model"
    let record = TripRecord.make(7)
    let model = Trip(record), observable = ObservableTrip(record)
    let operations = scale.isQuick ? 1_000_000 : 10_000_000

    progress("Models: attribute set and get, @Model beside @Observable")
    var modelSets: [Double] = [], observableSets: [Double] = [], modelGets: [Double] = [], observableGets: [Double] = []
    for _ in 0..<scale.runs {
        // The loops callgrind counts, timed here.
        observableSets.append(try seconds { callgrindRegionObservableSet(observable, operations) } / Double(operations))
        modelSets.append(try seconds { callgrindRegionSet(model, operations) } / Double(operations))
        observableGets.append(try seconds { blackHole(callgrindRegionObservableGet(observable, operations)) } / Double(operations))
        modelGets.append(try seconds { blackHole(callgrindRegionGet(model, operations)) } / Double(operations))
    }
    guard model.visits == operations - 1, observable.visits == operations - 1 else {
        throw BenchCheckFailed("models: the sets did not land (\(model.visits), \(observable.visits))")
    }
    results.append(Result(area: area, name: "attribute set (`trip.visits = n`)", unit: .time, ours: middle(modelSets),
                          referenceName: "@Observable class", reference: middle(observableSets), target: .ratio(1.1)))
    results.append(Result(area: area, name: "attribute get (`trip.visits`)", unit: .time, ours: middle(modelGets),
                          referenceName: "@Observable class", reference: middle(observableGets), target: .ratio(1.1)))

    guard let valgrind = CallgrindRun.valgrindPath() else {
        progress("Models: no valgrind on the PATH, so no instruction counts")
        return results
    }
    progress("Models: instructions per operation, under callgrind")
    let count = CallgrindOperation.operations
    func instructions(_ operation: CallgrindOperation) throws -> Double {
        try CallgrindRun(valgrind: valgrind, operation: operation, count: count).instructionsPerOperation()
    }
    let rows: [(String, CallgrindOperation, CallgrindOperation, String, Result.Target)] = [
        ("encode 1 trip to store values (`storedValues()`)", .encode, .codableEncode, "hand-written Codable", .atMost(1_500)),
        ("decode 1 trip from store values (`init(storedValues:)`)", .decode, .codableDecode, "hand-written Codable", .atMost(1_500)),
        ("attribute set (`trip.visits = n`)", .set, .observableSet, "@Observable class", .ratio(1.1)),
        ("attribute get (`trip.visits`)", .get, .observableGet, "@Observable class", .ratio(1.1)),
    ]
    for (name, ours, reference, referenceName, target) in rows {
        results.append(Result(area: area + ", callgrind", name: name, unit: .instructions, ours: try instructions(ours),
                              referenceName: referenceName, reference: try instructions(reference), target: target))
    }
    return results
}

// MARK: The operations, as callgrind counts them

/// An operation the `--callgrind` mode repeats: `bench --callgrind <operation> [count]`.
enum CallgrindOperation: String, CaseIterable {
    case encode, decode, set, get
    case codableEncode = "codable-encode", codableDecode = "codable-decode"
    case observableSet = "observable-set", observableGet = "observable-get"
    /// The per-model costs of a context over MemoryStore (ContextCallgrindOperations.swift).
    case fetchByID = "fetch-by-id", fetchByName = "fetch-by-name", fetchAll = "fetch-all", insertAndSave = "insert-save"
    case memoryPredicate = "memory-predicate"
    /// The per-row costs of the file stores (StoreCallgrindOperations.swift).
    case jsonOpen = "json-open", logSave = "log-save", logRange = "log-range", logScan = "log-scan"
    /// The per-trip cost of a read of trips with their related items, beside GRDB (RelationshipBenchmarks.swift).
    case relationships, relationshipsGRDB = "relationships-grdb"

    /// Operations per count: enough that the first call's one-time costs (metadata, caches)
    /// vanish in the quotient.
    static let operations = 20_000

    /// The function callgrind collects in: every loop below is named `callgrindRegion…`, and
    /// none of them has a closure (a closure's symbol carries its function's name and would
    /// toggle collection off inside it).
    static let collectedFunctions = "*callgrindRegion*"
}

/// `bench --callgrind <operation> [count]`: does `count` operations, each loop in a function of
/// its own that callgrind's `--toggle-collect` names, so that the setup is not counted:
///
///     valgrind --tool=callgrind --toggle-collect='*callgrindRegion*' bench --callgrind decode 20000
///
/// Instructions per operation: the collected total (callgrind's `summary`) ÷ `count`. The loops
/// are the timed ones too, so no twin function (which the optimizer would merge, leaving no
/// symbol to toggle on) exists.
func runCallgrindMode(_ arguments: [String]) throws {
    guard let name = arguments.first, let operation = CallgrindOperation(rawValue: name) else {
        throw BenchCheckFailed("--callgrind needs one of: \(CallgrindOperation.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    let count = arguments.dropFirst().first.flatMap { Int($0) } ?? CallgrindOperation.operations
    let record = TripRecord.make(7)
    switch operation {
    case .encode:
        blackHole(try callgrindRegionEncode(Trip(record), count))
    case .decode:
        let values = try Trip(record).storedValues()
        blackHole(try callgrindRegionDecode(values, count))
    case .codableEncode:
        blackHole(try callgrindRegionCodableEncode(CodableTrip(record), count))
    case .codableDecode:
        let values = try CodableTrip(record).storedValues()
        blackHole(try callgrindRegionCodableDecode(values, count))
    case .set:
        callgrindRegionSet(Trip(record), count)
    case .get:
        blackHole(callgrindRegionGet(Trip(record), count))
    case .observableSet:
        callgrindRegionObservableSet(ObservableTrip(record), count)
    case .observableGet:
        blackHole(callgrindRegionObservableGet(ObservableTrip(record), count))
    case .fetchByID, .fetchByName, .fetchAll, .insertAndSave, .memoryPredicate:
        try runContextCallgrindOperation(operation, count)
    case .jsonOpen, .logSave, .logRange, .logScan:
        try runStoreCallgrindOperation(operation, count)
    case .relationships, .relationshipsGRDB:
        try runRelationshipCallgrindOperation(operation, count)
    }
}

@inline(never)
func callgrindRegionEncode(_ trip: Trip, _ count: Int) throws -> Int {
    var total = 0
    for _ in 0..<count { total &+= try trip.storedValues().count }
    return total
}

@inline(never)
func callgrindRegionDecode(_ values: [String: SnapshotValue], _ count: Int) throws -> Int {
    var total = 0
    for _ in 0..<count { total &+= try Trip(storedValues: values).visits }
    return total
}

@inline(never)
func callgrindRegionCodableEncode(_ trip: CodableTrip, _ count: Int) throws -> Int {
    var total = 0
    for _ in 0..<count { total &+= try trip.storedValues().count }
    return total
}

@inline(never)
func callgrindRegionCodableDecode(_ values: [String: SnapshotValue], _ count: Int) throws -> Int {
    var total = 0
    for _ in 0..<count { total &+= try CodableTrip(storedValues: values).visits }
    return total
}

@inline(never)
func callgrindRegionSet(_ trip: Trip, _ count: Int) {
    for index in 0..<count { trip.visits = index }
}

@inline(never)
func callgrindRegionGet(_ trip: Trip, _ count: Int) -> Int {
    var total = 0
    for _ in 0..<count { total &+= trip.visits }
    return total
}

@inline(never)
func callgrindRegionObservableSet(_ trip: ObservableTrip, _ count: Int) {
    for index in 0..<count { trip.visits = index }
}

@inline(never)
func callgrindRegionObservableGet(_ trip: ObservableTrip, _ count: Int) -> Int {
    var total = 0
    for _ in 0..<count { total &+= trip.visits }
    return total
}

/// Keeps a result alive, so that the optimizer cannot drop the loop that made it.
@inline(never)
func blackHole(_ value: Int) {
    if value == .min { progress("") }
}

// MARK: Running callgrind

/// One run of this executable under callgrind, in its `--callgrind` mode.
struct CallgrindRun {
    let valgrind: String
    let operation: CallgrindOperation
    let count: Int

    /// valgrind's path, from the PATH; `nil` when it is not installed.
    static func valgrindPath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/valgrind" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs callgrind and returns the instructions it collected, divided by `count`.
    func instructionsPerOperation() throws -> Double {
        let output = FileManager.default.temporaryDirectory.appending(path: "bench-callgrind-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(filePath: valgrind)
        process.arguments = ["--tool=callgrind", "--callgrind-out-file=\(output)",
                             "--toggle-collect=\(CallgrindOperation.collectedFunctions)",
                             Self.executablePath(), "--callgrind", operation.rawValue, String(count)]
        // One hash seed in every run, so that dictionary probing, and the count, repeat.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchCheckFailed("callgrind of \(operation.rawValue) exited with \(process.terminationStatus)")
        }
        let text = try String(contentsOfFile: output, encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("summary:") || $0.hasPrefix("totals:") }),
              let total = Double(line.split(separator: " ").last ?? "") else {
            throw BenchCheckFailed("callgrind of \(operation.rawValue): no summary in \(output)")
        }
        // Nothing collected: the loop's function was inlined or merged away, and `--toggle-collect` never matched.
        guard total > 0 else { throw BenchCheckFailed("callgrind of \(operation.rawValue) collected nothing in \(CallgrindOperation.collectedFunctions)") }
        return total / Double(count)
    }

    /// This executable, as the kernel names it (the command line may name it relative to a
    /// directory or through the PATH).
    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
