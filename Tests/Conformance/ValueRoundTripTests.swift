import DataStores
import JSONStore
import LogStore
import MemoryStore
import StoreTestSupport
import Testing

// A property test for issue 11 ("Nothing acknowledged is ever lost or altered"), defect classes 2
// and 3: random values of every supported type go through each store by the public API (save,
// then a new container on the same files, fetch) and each comes back bit for bit, or its save
// was refused with a typed error and nothing was written.
//
// ROUNDTRIP_VALUES sets how many rows per store (default 300, a few seconds); ROUNDTRIP_SEED
// replays a run (each failure prints its seed); ROUNDTRIP_STORES (e.g. `json,log`) picks stores.
//
// Exact means: integers equal; Double by bit pattern, NaN payload and signalling bit included;
// Float by bit pattern, signalling NaNs included (the snapshot coder widens a Float NaN to
// Double by its bits: the hardware's conversion quieted it until 2026-11-29); Date by `timeIntervalSinceReferenceDate.bitPattern`;
// strings and keys by Unicode scalars; Decimal by `==` (NaN to NaN); URL by `absoluteString`
// (what the snapshot coder stores).

/// A tree of any depth: each level is an object holding an array (two levels of JSON).
struct RoundTripTree: Codable {
    var children: [RoundTripTree]
    var depth: Int { children.map { $0.depth + 1 }.max() ?? 0 }
    static func chain(_ depth: Int) -> RoundTripTree {
        (0..<depth).reduce(RoundTripTree(children: [])) { tree, _ in RoundTripTree(children: [tree]) }
    }
}

struct RoundTripInner: Codable {
    var small: Int8
    var dates: [Date]
    var note: String?
    var deeper: [RoundTripLeaf]
}

struct RoundTripLeaf: Codable {
    var flag: Bool
    var amount: Decimal
    var ratio: Float?
}

@Model
final class RoundTripRow {
    var id = UUID()
    var int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double = 0.0
    var float: Float = 0
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var uuid = UUID()
    var data = Data()
    var url = URL(filePath: "/")
    var decimal: Decimal = 0
    var string = ""
    var bool = false
    var optionalDouble: Double?
    var optionalDate: Date?
    var optionalString: String?
    var optionalInt: Int?
    var doubles: [Double] = []
    var strings: [String] = []
    var optionalInts: [Int?] = []
    var inner = RoundTripInner(small: 0, dates: [], note: nil, deeper: [])
    var stringMap: [String: String] = [:]
    var intMap: [String: Int] = [:]
    var tree = RoundTripTree(children: [])
    init() {}
}

/// Random values, with the edges over-represented.
struct ValueMaker {
    var random: SeededGenerator

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    mutating func integer<I: FixedWidthInteger>(_ type: I.Type) -> I {
        chance(0.3) ? pick([I.min, I.max, 0, I.min &+ 1, I.max &- 1, 1]) : I(truncatingIfNeeded: random.next())
    }

    mutating func uint64() -> UInt64 {
        chance(0.4) ? UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &random) : integer(UInt64.self)
    }

    static let specialDoubles: [Double] = [
        0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, -.leastNormalMagnitude,
        Double(bitPattern: 0x000F_FFFF_FFFF_FFFF), .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .nan, -.nan,
        Double(nan: 0x3_FFFF_FFFF, signaling: false), -Double(nan: 7, signaling: true), Double(nan: 1, signaling: true),
        .infinity, -.infinity, 0.1, 1e16, 9_007_199_254_740_992, .pi, 978_307_200, -978_307_200,
    ]

    mutating func double() -> Double {
        if chance(0.3) { return pick(Self.specialDoubles) }
        if chance(0.3) { return Double.random(in: -1e6...1e6, using: &random) }
        return Double(bitPattern: random.next())   // every exponent, subnormals, NaN payloads
    }

    mutating func float() -> Float {
        if chance(0.3) {
            return pick([0, -0.0, .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude, .nan, -.nan,
                         Float(nan: 0x1234, signaling: false), Float(nan: 3, signaling: true), .infinity, -.infinity, 0.1])
        }
        return Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
    }

    mutating func date() -> Date {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return Date(timeIntervalSinceReferenceDate: pick(Self.specialDoubles))
        case 1: return Date(timeIntervalSinceReferenceDate: Double(bitPattern: random.next()))
        case 2: return pick([Date.distantPast, .distantFuture, Date(timeIntervalSince1970: 0), Date()])
        default:   // around now, to the last bit: what `Date()` gives
            return Date(timeIntervalSinceReferenceDate: Double.random(in: 0...2e9, using: &random))
        }
    }

    mutating func decimal() -> Decimal {
        if chance(0.2) {
            return pick([Decimal.nan, .greatestFiniteMagnitude, .leastFiniteMagnitude, .leastNonzeroMagnitude, 0, -1,
                         Decimal(sign: .minus, exponent: -128, significand: 1), Decimal(sign: .plus, exponent: 127, significand: 9)])
        }
        let digits = Int.random(in: 1...38, using: &random)
        var significand = String(Int.random(in: 1...9, using: &random))
        for _ in 1..<digits { significand.append(Character(String(Int.random(in: 0...9, using: &random)))) }
        let exponent = Int.random(in: -128...(127 - digits + 1), using: &random)
        let text = (chance(0.5) ? "-" : "") + significand + "e" + String(exponent)
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0
    }

    /// Every kind of scalar: ASCII, JSON's specials, controls, line and paragraph separators, BOM,
    /// non-characters, combining marks, astral planes.
    mutating func scalar() -> Unicode.Scalar {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random))
        case 1: return Unicode.Scalar(UInt8.random(in: 0...0x1F, using: &random))
        case 2: return pick(["\"", "\\", "/", "$", "\u{7F}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFE}", "\u{FFFF}", "\u{0301}", "\u{10FFFF}"])
        case 3: return Unicode.Scalar(UInt32.random(in: 0x80...0x7FF, using: &random))!
        case 4: return Unicode.Scalar(UInt32.random(in: 0xE000...0xFFFD, using: &random))!
        case 5: return Unicode.Scalar(UInt32.random(in: 0x1F300...0x1FAFF, using: &random)) ?? "😀"
        case 6: return Unicode.Scalar(UInt32.random(in: 0x10000...0x10FFFF, using: &random)) ?? "𝄞"
        default: return Unicode.Scalar(UInt32.random(in: 0x800...0xD7FF, using: &random))!
        }
    }

    mutating func string(maximum: Int = 24) -> String {
        if chance(0.05) { return "" }
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 1...maximum, using: &random) { scalars.append(scalar()) }
        return String(scalars)
    }

    mutating func key() -> String {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return pick(["$date", "$uuid", "$data", "$object", "$uint", "$decimal", "$double", "$date2001", "$", ""])
        case 1: return "$" + string(maximum: 6)
        default: return string(maximum: 8)
        }
    }

    mutating func url() -> URL {
        let candidates = [
            "https://example.com/" + string(maximum: 8), "file:///tmp/" + string(maximum: 8), "urn:isbn:0451450523",
            "mailto:someone@example.com", "https://user:pw@example.com:8443/a/b?q=\(random.next())#frag",
        ]
        let text = pick(candidates)
        return URL(string: text) ?? URL(string: text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "") ?? URL(filePath: "/")
    }

    mutating func optional<T>(_ make: (inout ValueMaker) -> T) -> T? { chance(0.3) ? nil : make(&self) }

    /// Mostly shallow; sometimes right at the deepest a store holds (two levels per tree level:
    /// a chain of 255 nests 512 levels, the most any store holds, and MemoryStore holds it; a
    /// JSON store counts its framing too, from attribute depth 4: 253 is its deepest).
    mutating func treeDepth() -> Int {
        if chance(0.9) { return Int.random(in: 0...3, using: &random) }
        if chance(0.5) { return Int.random(in: 250...258, using: &random) }
        return Int.random(in: 0...300, using: &random)
    }

    mutating func row() -> RoundTripRow {
        let row = RoundTripRow()
        row.int = integer(Int.self); row.int8 = integer(Int8.self); row.int16 = integer(Int16.self)
        row.int32 = integer(Int32.self); row.int64 = integer(Int64.self); row.uint = integer(UInt.self)
        row.uint8 = integer(UInt8.self); row.uint16 = integer(UInt16.self); row.uint32 = integer(UInt32.self)
        row.uint64 = uint64(); row.double = double(); row.float = float(); row.date = date()
        row.uuid = UUID(); row.data = Data((0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        row.url = url(); row.decimal = decimal(); row.string = string(); row.bool = chance(0.5)
        row.optionalDouble = optional { $0.double() }; row.optionalDate = optional { $0.date() }
        row.optionalString = optional { $0.string() }; row.optionalInt = optional { $0.integer(Int.self) }
        row.doubles = (0..<Int.random(in: 0...5, using: &random)).map { _ in double() }
        row.strings = (0..<Int.random(in: 0...4, using: &random)).map { _ in string(maximum: 6) }
        row.optionalInts = (0..<Int.random(in: 0...4, using: &random)).map { _ in optional { $0.integer(Int.self) } }
        row.inner = RoundTripInner(
            small: integer(Int8.self), dates: (0..<Int.random(in: 0...3, using: &random)).map { _ in date() },
            note: optional { $0.string() },
            deeper: (0..<Int.random(in: 0...2, using: &random)).map { _ in
                RoundTripLeaf(flag: chance(0.5), amount: decimal(), ratio: optional { $0.float() })
            })
        for _ in 0..<Int.random(in: 0...4, using: &random) { row.stringMap[key()] = string(maximum: 6) }
        for _ in 0..<Int.random(in: 0...4, using: &random) { row.intMap[key()] = integer(Int.self) }
        row.tree = .chain(treeDepth())
        return row
    }
}

/// What a run found, per store.
struct RoundTripOutcome: CustomStringConvertible {
    var store: String
    var tried = 0, exact = 0, refused = 0
    var lost: [String] = []
    /// Whether the refusals were exactly the rows nested too deep for the store.
    var refusedAsDocumented = true
    var description: String { "\(store): \(tried) tried, \(exact) exact, \(refused) refused at save, \(lost.count) lost" }
}

/// A deliberately lossy step applied to what is read back, for the negative control.
enum Sabotage {
    case none
    /// Dates through seconds since 1970, as the old encoding stored them.
    case lossyDates

    func apply(_ value: SnapshotValue) -> SnapshotValue {
        switch (self, value) {
        case (.none, _): return value
        case (.lossyDates, .date(let date)): return .date(Date(timeIntervalSince1970: date.timeIntervalSince1970))
        case (.lossyDates, .array(let elements)): return .array(elements.map(apply))
        case (.lossyDates, .object(let object)): return .object(object.mapValues(apply))
        case (.lossyDates, _): return value
        }
    }
}

enum RoundTripStore: String, CaseIterable, CustomStringConvertible {
    case memory, json, log
    var description: String { rawValue }

    func configuration(_ directory: URL) -> any DataStoreConfiguration {
        switch self {
        case .memory: MemoryStoreConfiguration(name: "roundtrip-\(directory.lastPathComponent)", isShared: true)
        case .json: JSONStoreConfiguration(url: directory.appending(path: "store.json"), compactionThreshold: 256 << 10)
        case .log: LogStoreConfiguration(directory: directory.appending(path: "log"), timestamps: [LogTimestamp(\RoundTripRow.date)],
                                         segmentSize: 1 << 20)
        }
    }
}


/// The first place where two values differ, to say what was lost.
func describeDifference(_ path: String, _ a: SnapshotValue, _ b: SnapshotValue) -> String {
    switch (a, b) {
    case let (.array(x), .array(y)) where x.count == y.count:
        if let index = x.indices.first(where: { !sameBits(x[$0], y[$0]) }) { return describeDifference(path + "[\(index)]", x[index], y[index]) }
    case let (.object(x), .object(y)) where Set(x.keys) == Set(y.keys):
        if let key = x.keys.sorted().first(where: { !sameBits(x[$0]!, y[$0]!) }) { return describeDifference(path + "." + key, x[key]!, y[key]!) }
    default: break
    }
    func show(_ v: SnapshotValue) -> String {
        switch v {
        case .double(let d): "double(\(d.debugDescription), bits \(String(d.bitPattern, radix: 16)))"
        case .date(let d): "date(\(d.timeIntervalSinceReferenceDate.debugDescription))"
        default: "\(v)"
        }
    }
    return "\(path): \(show(a)) came back as \(show(b))"
}

/// The row as compared: its attributes, with the Float compared by its own bits.
func fingerprint(_ row: RoundTripRow) throws -> [String: SnapshotValue] {
    var attributes = try row.storedValues()
    attributes["float"] = .unsigned(UInt64(row.float.bitPattern) | 1 << 63)   // tagged apart from any number
    return attributes
}

/// Saves `count` random rows into `store`, reopens it, and compares every row; in stores of at
/// most `chunk` rows each, because a refused save reloads a JSON store from its files (so a
/// long run in one store would spend its time reloading, not checking).
func roundTrip(_ store: RoundTripStore, count: Int, seed: UInt64, chunk: Int = 2_000, sabotage: Sabotage = .none) throws -> RoundTripOutcome {
    var total = RoundTripOutcome(store: store.rawValue)
    var done = 0
    while done < count {
        let part = try roundTripOneStore(store, count: min(chunk, count - done), seed: seed &+ UInt64(done), sabotage: sabotage)
        total.tried += part.tried
        total.exact += part.exact
        total.refused += part.refused
        total.lost += part.lost
        total.refusedAsDocumented = total.refusedAsDocumented && part.refusedAsDocumented
        done += part.tried
    }
    return total
}

private func roundTripOneStore(_ store: RoundTripStore, count: Int, seed: UInt64, sabotage: Sabotage) throws -> RoundTripOutcome {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var maker = ValueMaker(random: SeededGenerator(seed: seed))
    var outcome = RoundTripOutcome(store: store.rawValue)
    var expected: [UUID: [String: SnapshotValue]] = [:]
    var refusedIDs: Set<UUID> = []
    var depths: [UUID: Int] = [:]
    let configuration = store.configuration(directory)

    func fileSizes() throws -> [String: Int] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey]) else { return [:] }
        var sizes: [String: Int] = [:]
        for case let url as URL in walker where !url.lastPathComponent.hasSuffix(".lock") {
            sizes[url.path] = try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0
        }
        return sizes
    }

    do {
        let container = try ModelContainer(for: RoundTripRow.self, configurations: configuration)
        var pending: [RoundTripRow] = []
        func save(_ rows: [RoundTripRow]) throws {
            guard !rows.isEmpty else { return }
            let context = ModelContext(container)
            for row in rows { context.insert(row) }
            let sizes = try fileSizes()
            let countBefore = try ModelContext(container).fetchCount(FetchDescriptor<RoundTripRow>())
            do {
                try context.save()
                for row in rows { expected[row.id] = try fingerprint(row) }
            } catch let error as DataStoreError where error.code == .unsupportedValue {
                refusedIDs.formUnion(rows.map(\.id))
                outcome.refused += rows.count
                if try fileSizes() != sizes { outcome.lost.append("a refused save changed the files (\(error))") }
                let countAfter = try ModelContext(container).fetchCount(FetchDescriptor<RoundTripRow>())
                if countAfter != countBefore { outcome.lost.append("a refused save changed the store: \(countBefore) rows, then \(countAfter)") }
            }
        }
        for _ in 0..<count {
            let row = maker.row()
            depths[row.id] = row.tree.depth
            outcome.tried += 1
            if row.tree.children.isEmpty {
                pending.append(row)
                if pending.count == 50 { try save(pending); pending = [] }
            } else {
                try save([row])   // a deep row alone, so that a refusal is its own
            }
        }
        try save(pending)
    }

    // A new container on the same files: a reopen.
    let reopened = try ModelContainer(for: RoundTripRow.self, configurations: configuration)
    let fetched = try ModelContext(reopened).fetch(FetchDescriptor<RoundTripRow>())
    var seen: Set<UUID> = []
    for row in fetched {
        seen.insert(row.id)
        guard let want = expected[row.id] else {
            outcome.lost.append(refusedIDs.contains(row.id) ? "refused row \(row.id) was stored" : "unknown row \(row.id)")
            continue
        }
        let got = try fingerprint(row).mapValues(sabotage.apply)
        if sameBits(.object(want), .object(got)) {
            outcome.exact += 1
        } else {
            let differing = want.keys.sorted().filter { !sameBits(want[$0]!, got[$0] ?? .null) }
            outcome.lost.append("row \(row.id): " + differing.prefix(3).map { key in (want[key]!, got[key] ?? .null, key) }.map { want, got, key in describeDifference(key, want, got) }.map { $0 }.joined(separator: "; "))
        }
    }
    for id in expected.keys where !seen.contains(id) { outcome.lost.append("row \(id) was acknowledged but is gone") }
    // Stores refuse exactly what nests past the limit (ValueMaker.treeDepth): the snapshot
    // coder's for MemoryStore, the JSON writer's (with its framing) for files.
    let deepest = store == .memory ? 255 : 253
    outcome.refusedAsDocumented = refusedIDs.allSatisfy { depths[$0]! > deepest }
        && expected.keys.allSatisfy { depths[$0]! <= deepest }
    return outcome
}

@Suite(.serialized) struct ValueRoundTripTests {
    static var count: Int { ProcessInfo.processInfo.environment["ROUNDTRIP_VALUES"].flatMap(Int.init) ?? 300 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["ROUNDTRIP_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max) }

    @Test(.enabled(if: FullTestRun.isEnabled), arguments: RoundTripStore.allCases)
    func everyValueComesBackExactlyOrIsRefusedAtSave(_ store: RoundTripStore) throws {
        // ROUNDTRIP_STORES=json,log runs only those (long runs by hand, one process per store).
        if let only = ProcessInfo.processInfo.environment["ROUNDTRIP_STORES"], !only.split(separator: ",").contains(Substring(store.rawValue)) { return }
        let seed = Self.seed
        let outcome = try roundTrip(store, count: Self.count, seed: seed)
        print("round trip (ROUNDTRIP_SEED=\(seed)) \(outcome)")
        #expect(outcome.lost.isEmpty, "ROUNDTRIP_SEED=\(seed) \(outcome): \(outcome.lost.prefix(5).joined(separator: "\n"))")
        #expect(outcome.exact + outcome.refused == outcome.tried, "\(outcome)")
        #expect(outcome.exact > 0)
        #expect(outcome.refusedAsDocumented, "a store refused a row that fits, or kept one nested past the limit")
    }

    /// The negative control: a store that kept dates the old way (seconds since 1970) is caught.
    @Test func theCheckerCatchesTheOldLossyDates() throws {
        let outcome = try roundTrip(.memory, count: 200, seed: 11, sabotage: .lossyDates)
        #expect(outcome.lost.count > 20, "\(outcome)")
        #expect(outcome.lost.contains { $0.contains("date") }, "\(outcome.lost.first ?? "")")
    }
}
