import Foundation
import StoreProtocol

/// SplitMix64: a seeded generator, the same sequence on every platform, so that a failing case
/// can be replayed from its seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func uuidBytes() -> uuid_t {
        let a = next(), b = next()
        return withUnsafeBytes(of: (a, b)) { raw in
            (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
             raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15])
        }
    }
}

/// Damages store files the ways disks, crashes and people do: cuts, bit flips, garbage, other
/// formats, huge lengths in binary headers.
public enum FileMutation {
    /// A damaged copy of `data` and what was done to it.
    public static func mutate(_ data: Data, using generator: inout SeededGenerator) -> (Data, String) {
        var result = data
        let count = data.count
        switch Int.random(in: 0..<9, using: &generator) {
        case 0 where count > 0:
            let length = Int.random(in: 0..<count, using: &generator)
            return (data.prefix(length), "truncated to \(length) bytes")
        case 1 where count > 0:
            var flipped: [Int] = []
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<count, using: &generator)
                result[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
                flipped.append(index)
            }
            return (result, "bits flipped at \(flipped)")
        case 2 where count > 0:
            let start = Int.random(in: 0..<count, using: &generator)
            let length = min(count - start, Int.random(in: 1...64, using: &generator))
            for index in start..<(start + length) { result[index] = UInt8.random(in: 0...255, using: &generator) }
            return (result, "\(length) random bytes at \(start)")
        case 3:
            let length = Int.random(in: 0...512, using: &generator)
            return (Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }), "\(length) random bytes")
        case 4:
            let others = ["", "{}", "[]", "null", "{\"format\":\"swift-data-stores/json-store\",\"version\":1}",
                          "{\"format\":\"swift-data-stores/log-store\",\"version\":1,\"storeIdentifier\":\"x\",\"droppedThrough\":-5}",
                          "SQLite format 3\u{0}", "%PDF-1.7\n", String(repeating: "[", count: 100_000)]
            let other = others[Int.random(in: 0..<others.count, using: &generator)]
            return (Data(other.utf8), "replaced by another format: \(other.prefix(40))")
        case 5 where count >= 4:
            // A huge length where a binary record header may be.
            let start = Int.random(in: 0...(count - 4), using: &generator) & ~3
            let huge: [UInt8] = [0xF0, 0xFF, 0xFF, [0x7F, 0xFF][Int.random(in: 0...1, using: &generator)]]
            result.replaceSubrange(start..<(start + 4), with: huge)
            return (result, "huge length at \(start)")
        case 6 where count > 0:
            let start = Int.random(in: 0..<count, using: &generator)
            let chunk = data[start..<min(count, start + Int.random(in: 1...200, using: &generator))]
            result.insert(contentsOf: chunk, at: Int.random(in: 0...count, using: &generator))
            return (result, "a chunk of \(chunk.count) bytes duplicated")
        case 7 where count > 0:
            let start = Int.random(in: 0..<count, using: &generator)
            let length = min(count - start, Int.random(in: 1...100, using: &generator))
            result.removeSubrange(start..<(start + length))
            return (result, "\(length) bytes removed at \(start)")
        default:
            result.append(contentsOf: (0..<Int.random(in: 1...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            return (result, "garbage appended")
        }
    }
}

/// Every file of a directory (lock files aside), to check that a failed open changed nothing.
public func directoryContents(_ directory: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasSuffix("lock") {
        result[name] = try Data(contentsOf: directory.appending(path: name))
    }
    return result
}

/// Replaces a directory's files with `contents` (and removes the others).
public func restore(_ directory: URL, to contents: [String: Data]) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where contents[name] == nil && !name.hasSuffix("lock") {
        try FileManager.default.removeItem(at: directory.appending(path: name))
    }
    for (name, data) in contents { try data.write(to: directory.appending(path: name)) }
}

/// Counts events across tasks (a fault hook's calls).
public final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    public init() {}
    /// Adds one and returns the new count.
    public func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// How many corrupt inputs a test feeds each store: 2,000, or `CORRUPT_INPUTS` from the environment.
public func corruptInputCases() -> Int {
    ProcessInfo.processInfo.environment["CORRUPT_INPUTS"].flatMap(Int.init) ?? 2_000
}

/// What feeding damaged files to a store found.
public struct CorruptionReport: Sendable {
    public var typedErrors = 0
    /// Reads that returned exactly what the store held before the damage.
    public var reads = 0
    /// Reads that returned the state before the last save: damage to the last record of a
    /// journal or log reads as a write a crash cut short, and is cut as one.
    public var readsWithoutLastSave = 0
    /// Reads of an older state after a file was cut short: a file cut at a record boundary is
    /// indistinguishable from one that never held the rest, without a length kept elsewhere.
    public var readsOfAnEarlierStateAfterACut = 0
    /// Untyped errors, reads that returned anything else (less, more, altered, or an older
    /// state for damage other than a cut), and failed or read-only opens that changed a file.
    public var problems: [String] = []

    public var allReads: Int { reads + readsWithoutLastSave + readsOfAnEarlierStateAfterACut }

    /// The line a test prints: what `cases` damaged copies of `store` (each opened twice) came
    /// to; `torn` names what a torn last write leaves ("line", "record").
    public func summary(_ store: String, cases: Int, torn: String) -> String {
        "\(store) corrupt inputs: \(cases) damaged stores, \(2 * cases) opens: "
            + "\(typedErrors) typed errors, \(reads) exact reads, \(readsWithoutLastSave) reads without "
            + "the last save (a torn last \(torn)), \(readsOfAnEarlierStateAfterACut) of an earlier save after a cut, "
            + "\(problems.count) problems"
    }
}

/// Damages one file of `directory` (whose files are a valid store) `cases` times, and each
/// time calls `read` twice, read-only and writable: it opens the store and reads everything.
/// Each must end in a typed error or a read of exactly the undamaged store's data (the last of
/// `statesAfterEachSave`), of the data before its last save (a torn last record), or, when the
/// damage cut the file short, of an earlier save's data; a read-only open, or an open that
/// fails with a ``DataStoreError``, must leave every file as it was.
public func feedCorruptInputs(
    to directory: URL, cases: Int, seed: UInt64, statesAfterEachSave: [[String]],
    read: (_ allowsSave: Bool) throws -> [String]
) throws -> CorruptionReport {
    let pristine = try directoryContents(directory)
    let files = pristine.keys.sorted()
    var generator = SeededGenerator(seed: seed)
    var report = CorruptionReport()
    for index in 0..<cases {
        let file = files[index % files.count]
        guard let original = pristine[file] else { continue }
        let (damaged, what) = FileMutation.mutate(original, using: &generator)
        var contents = pristine
        contents[file] = damaged
        try restore(directory, to: contents)
        let context = "case \(index): \(file) \(what)"
        for allowsSave in [false, true] {
            let before = try directoryContents(directory)
            var mustBeUnchanged = !allowsSave
            do {
                let data = try read(allowsSave)
                switch statesAfterEachSave.lastIndex(of: data) {
                case statesAfterEachSave.count - 1: report.reads += 1
                case statesAfterEachSave.count - 2: report.readsWithoutLastSave += 1
                case .some where what.hasPrefix("truncated") || damaged.isEmpty: report.readsOfAnEarlierStateAfterACut += 1
                case .some(let saves): report.problems.append("a read returned the data after save \(saves + 1) of \(statesAfterEachSave.count) — \(context)")
                case nil: report.problems.append("a read returned data the store never held — \(context)")
                }
            } catch is DataStoreError {
                report.typedErrors += 1
                mustBeUnchanged = true
            } catch is HistoryError {
                report.typedErrors += 1
            } catch {
                report.problems.append("untyped error \(type(of: error)): \(error) — \(context)")
            }
            if mustBeUnchanged, try directoryContents(directory) != before {
                report.problems.append("files changed (\(allowsSave ? "failed open" : "read-only open")) — \(context)")
            }
        }
    }
    return report
}
