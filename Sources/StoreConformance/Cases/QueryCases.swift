import Foundation
import StoreProtocol

/// Differential query cases: each fetch's results on the store under test must equal the same
/// `Predicate` evaluated on every model in memory (`try predicate.evaluate(model)`), sorted by
/// the same `SortDescriptor`s with `sorted(using:)` and paged. Whatever a store translates and
/// pushes down, and whatever it leaves to models, the answer must be the same; a predicate
/// that throws on some model must make the fetch throw.
///
/// The rows (``SuiteQueryRow``) tie, are `nil`, and differ only by Unicode normalization, the
/// sign of zero, NaN or the last bit of a large integer. The predicates are a fixed list of
/// `#Predicate` literals and trees generated from `PredicateExpressions.build_*` with seeded
/// random constants from the rows' own values (so comparisons hit ties). Set
/// `STORE_QUERY_SEED` to replay one seed; a failure names its seed.
enum QueryCases {
    /// The seeds of the generated predicates.
    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["STORE_QUERY_SEED"], let seed = UInt64(text) { return [seed] }
        return [11, 22, 33]
    }
    static let generatedPerSeed = 150

    static let all: [ConformanceCase] = [
        ConformanceCase(area: "queries", name: "fixedPredicatesMatchEvaluationOnModels") { target in
            let container = try target.makeContainer()
            try insertQueryRows(into: container)
            try compare(fixedProbes(), in: container, seed: nil)
        },
        ConformanceCase(area: "queries", name: "generatedPredicatesMatchEvaluationOnModels") { target in
            let container = try target.makeContainer()
            try insertQueryRows(into: container)
            for seed in seeds {
                var random = SplitMix64(seed: seed)
                let probes = (0..<generatedPerSeed).map { _ in generatedProbe(&random) }
                // Most must be pushed down whole, or the comparison would be models against models.
                let queries = probes.map { FetchQuery($0.descriptor) }
                let whole = queries.filter(\.isFullyTranslated).count
                let sortedAndLimited = queries.filter { if case .keys = $0.sort, $0.fetchLimit != nil { true } else { false } }.count
                try check(whole * 2 >= probes.count && sortedAndLimited * 5 >= probes.count,
                          "seed \(seed): \(whole) of \(probes.count) generated fetches translate whole, "
                          + "\(sortedAndLimited) have a translated sort and a limit")
                try compare(probes, in: container, seed: seed)
            }
        },
        // The same kind of trees over rows without NaN, with strings in Unicode normalization
        // form C and integers within `Int64`, as most data is: a store that compares such rows in
        // its own query language (SQL's byte order, its NaN, its `bigint`) answers these whole
        // there, without the in-memory fallback that one such value in the table sends it to.
        ConformanceCase(area: "queries", name: "generatedPredicatesOverCanonicalRowsMatchEvaluationOnModels") { target in
            let container = try target.makeContainer()
            let rows = queryRows().filter(\.isCanonical)
            try save(rows, into: container)
            for seed in seeds {
                var random = SplitMix64(seed: seed)
                let probes = (0..<generatedPerSeed).map { _ in generatedProbe(&random) }
                try compare(probes, in: container, seed: seed, storedRows: rows.count)
            }
        },
        // Enough rows that looking an indexed value up and scanning differ in cost (a store
        // with indexes reads a few dozen rows), never in the answer.
        ConformanceCase(area: "queries", name: "indexedEqualitiesMatchEvaluationOnModelsAtScale") { target in
            let container = try target.makeContainer()
            try insertQueryRows(into: container, count: scaleRowCount)
            try compare(indexedProbes(), in: container, seed: nil, rowCount: scaleRowCount)
        },
    ]

    /// One fetch to compare: a descriptor and how to say it.
    struct Probe {
        var descriptor: FetchDescriptor<SuiteQueryRow>
        var text: String
    }

    /// What a fetch gave: ids in order, or that it threw.
    enum Outcome: Equatable, CustomStringConvertible {
        case rows([String])
        case threw

        var description: String {
            switch self {
            case .rows(let names): return "\(names.count) rows \(names.prefix(12))\(names.count > 12 ? "…" : "")"
            case .threw: return "an error"
            }
        }
    }

    // MARK: Comparing

    /// `storedRows`: how many rows the case saved, when not all of ``queryRows(count:)``.
    static func compare(_ probes: [Probe], in container: ModelContainer, seed: UInt64?, rowCount: Int = rowCount, storedRows: Int? = nil) throws {
        let all = try ModelContext(container).fetch(FetchDescriptor<SuiteQueryRow>())
        let nonFinite = queryRows(count: rowCount).filter(\.hasNaN).count
        if let storedRows {
            try checkEqual(all.count, storedRows, "rows stored")
        } else {
            try check(all.count == rowCount || all.count == rowCount - nonFinite, "rows stored: \(all.count)")
        }
        let label = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.id, "#\($0)") })
        func names(_ rows: [SuiteQueryRow]) -> [String] { rows.map { label[$0.id] ?? "\($0.id)" } }
        for (index, probe) in probes.enumerated() {
            let expected: Outcome
            do { expected = .rows(names(try evaluateOnModels(probe.descriptor, all))) } catch { expected = .threw }
            let context = ModelContext(container)
            var observed: Outcome
            var observedCount: Int?
            do {
                observed = .rows(names(try context.fetch(probe.descriptor)))
                observedCount = try context.fetchCount(probe.descriptor)
            } catch let error as DataStoreError where error.code == .invalidPredicate {
                observed = .threw
            }
            let place = (seed.map { "seed \($0), " } ?? "") + "probe \(index): \(probe.text)"
            try check(observed == expected, "\(place): expected \(expected), the store gave \(observed)")
            if case .rows(let rows) = expected {
                try checkEqual(observedCount, rows.count, "\(place): fetchCount")
            }
        }
    }

    /// The reference: the predicate on every model, `sorted(using:)`, then offset and limit.
    static func evaluateOnModels(_ descriptor: FetchDescriptor<SuiteQueryRow>, _ models: [SuiteQueryRow]) throws -> [SuiteQueryRow] {
        var selected = models
        if let predicate = descriptor.predicate { selected = try models.filter { try predicate.evaluate($0) } }
        if !descriptor.sortBy.isEmpty { selected = selected.sorted(using: descriptor.sortBy) }
        let start = min(selected.count, max(0, descriptor.fetchOffset ?? 0))
        let end = descriptor.fetchLimit.map { min(selected.count, start + max(0, $0)) } ?? selected.count
        return Array(selected[start..<end])
    }

    // MARK: Rows

    static let rowCount = 300
    /// The rows of the indexed-equality case.
    static let scaleRowCount = 3_000

    static let names = ["caf\u{E9}", "cafe\u{301}", "cafe", "Café", "CAFÉ", "abc", "ABC", "abd", "", "a", "b", "zebra",
                        "Zürich", "Zu\u{308}rich", "🧭", "🧭x", "résumé", "resume", "n\u{303}o", "\u{F1}o", "Ωmega", "ß",
                        "ss", "a b", "10", "9"]
    static let counts = [-3, -2, -1, 0, 1, 2, 3, 7, Int.min, Int.max, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1]
    static let ranks = [0, 1, 2, 3, -1, Int.max]
    static let scores: [Double] = [-0.0, 0.0, 1.5, -1.5, 3, 0.1, 1e300, -1e-300, 9_007_199_254_740_992, .infinity, -.infinity, .nan]
    static let ratios: [Float] = [0, -0.0, 0.1, 1.5, 16_777_216, -2.5, .nan]
    static let bigs: [UInt64] = [0, 1, 5, UInt64(Int64.max), UInt64(Int64.max) + 1, .max, .max - 1, 1 << 53, (1 << 53) + 1]
    static let smalls: [Int8] = [-128, -1, 0, 1, 127]
    static let dates: [Date] = [-2, -1, 0, 1, 2].map { SuiteTrip.day($0) } + [SuiteTrip.day(0).addingTimeInterval(0.5), Date(timeIntervalSince1970: 0)]
    static let tokens = [UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!,
                         UUID(uuidString: "7B1E0A5C-1D2F-4F8A-9C3B-2A4D6E8F0A1B")!]

    struct RowValues {
        var name: String, nickname: String?, count: Int, rank: Int?, score: Double, optionalScore: Double?, ratio: Float
        var big: UInt64, small: Int8, when: Date, due: Date?, flag: Bool, maybe: Bool?, token: UUID?, mood: SuiteAllTypes.Mood
        var hasNaN: Bool { score.isNaN || (optionalScore?.isNaN ?? false) || ratio.isNaN }
        /// No NaN, every string in Unicode normalization form C, and no integer beyond `Int64`.
        var isCanonical: Bool {
            func isNFC(_ text: String) -> Bool { text.unicodeScalars.elementsEqual(text.precomposedStringWithCanonicalMapping.unicodeScalars) }
            return !hasNaN && isNFC(name) && (nickname.map(isNFC) ?? true) && big <= UInt64(Int64.max)
        }
    }

    /// The rows, the same on every run (the first 300 the same for any count).
    static func queryRows(count: Int = rowCount) -> [RowValues] {
        var random = SplitMix64(seed: 0x5EED)
        func maybe<V>(_ value: V) -> V? { random.next() % 3 == 0 ? nil : value }
        return (0..<count).map { _ in
            RowValues(
                name: random.pick(names), nickname: maybe(random.pick(names)), count: random.pick(counts),
                rank: maybe(random.pick(ranks)), score: random.pick(scores), optionalScore: maybe(random.pick(scores)),
                ratio: random.pick(ratios), big: random.pick(bigs), small: random.pick(smalls), when: random.pick(dates),
                due: maybe(random.pick(dates)), flag: random.next() % 2 == 0, maybe: maybe(random.next() % 2 == 0),
                token: maybe(random.pick(tokens)), mood: random.next() % 2 == 0 ? .calm : .excited)
        }
    }

    /// Saves the rows; a store that refuses NaN (with a `DataStoreError`) gets the others.
    static func insertQueryRows(into container: ModelContainer, count: Int = rowCount) throws {
        do {
            try save(queryRows(count: count), into: container)
        } catch is DataStoreError {
            try save(queryRows(count: count).filter { !$0.hasNaN }, into: container)
        }
    }

    /// Saves these rows, in one save.
    static func save(_ rows: [RowValues], into container: ModelContainer) throws {
        let context = ModelContext(container)
        for v in rows {
            context.insert(SuiteQueryRow(
                name: v.name, nickname: v.nickname, count: v.count, rank: v.rank, score: v.score, optionalScore: v.optionalScore,
                ratio: v.ratio, big: v.big, small: v.small, when: v.when, due: v.due, flag: v.flag, maybe: v.maybe,
                token: v.token, mood: v.mood))
        }
        try context.save()
    }

    // MARK: Indexed equalities

    /// Equalities and `contains` on the indexed attributes (every type a query compares), alone,
    /// under `&&` (first, last, beside an untranslated part, beside a force unwrap that throws)
    /// and under `||`, values that are equal only by the query's `==` (composed and decomposed
    /// é, -0.0 and 0.0, NaN equal to nothing), with sorts, offsets and limits.
    static func indexedProbes() -> [Probe] {
        let cafe = "caf\u{E9}", decomposed = "cafe\u{301}", nobody = "nobody", sz = "ß", a = "a"
        let precise = (1 << 53) + 1, maxInt = Int.max, three = 3, negativeZero = -0.0, oneAndHalf = 1.5
        let notANumber = scores.first(where: \.isNaN) ?? 0
        let tiny = Float(0.1), floatZero = Float(-0.0), aboveInt64 = UInt64(Int64.max) + 1, nearMax = UInt64.max - 1
        let day0 = SuiteTrip.day(0), day1 = SuiteTrip.day(1), token0 = tokens[0], calm = SuiteAllTypes.Mood.calm
        let someNames = ["abc", decomposed, sz, nobody], someCounts = [0, 3, 1 << 53], someTokens: [UUID?] = [tokens[0], nil]
        let predicates: [(String, Predicate<SuiteQueryRow>)] = [
            ("name == café", #Predicate { $0.name == cafe }),
            ("name == cafe+U+0301", #Predicate { $0.name == decomposed }),
            ("café == name", #Predicate { cafe == $0.name }),
            ("name == nobody", #Predicate { $0.name == nobody }),
            ("count == 3", #Predicate { $0.count == three }),
            ("count == Int.max", #Predicate { $0.count == maxInt }),
            ("count == 2^53+1", #Predicate { $0.count == precise }),
            ("score == -0.0", #Predicate { $0.score == negativeZero }),
            ("score == NaN", #Predicate { $0.score == notANumber }),
            ("score == 1.5", #Predicate { $0.score == oneAndHalf }),
            ("optionalScore == -0.0", #Predicate { $0.optionalScore == negativeZero }),
            ("ratio == 0.1", #Predicate { $0.ratio == tiny }),
            ("ratio == -0.0", #Predicate { $0.ratio == floatZero }),
            ("big == Int64.max + 1", #Predicate { $0.big == aboveInt64 }),
            ("big == UInt64.max - 1", #Predicate { $0.big == nearMax }),
            ("when == day 0", #Predicate { $0.when == day0 }),
            ("due == nil", #Predicate { $0.due == nil }),
            ("due == day 1", #Predicate { $0.due == day1 }),
            ("nickname == nil", #Predicate { $0.nickname == nil }),
            ("nickname == ß", #Predicate { $0.nickname == sz }),
            ("rank == Int.max", #Predicate { $0.rank == maxInt }),
            ("token == token0", #Predicate { $0.token == token0 }),
            ("flag == true", #Predicate { $0.flag == true }),
            ("names.contains(name)", #Predicate { someNames.contains($0.name) }),
            ("counts.contains(count)", #Predicate { someCounts.contains($0.count) }),
            ("tokens.contains(token)", #Predicate { someTokens.contains($0.token) }),
            ("name == café && count > 0", #Predicate { $0.name == cafe && $0.count > 0 }),
            ("count > 0 && name == café", #Predicate { $0.count > 0 && $0.name == cafe }),
            ("name == a && count == 3", #Predicate { $0.name == a && $0.count == three }),
            ("name == a || count == 3", #Predicate { $0.name == a || $0.count == three }),
            ("name == café && mood == calm (narrowed)", #Predicate { $0.name == cafe && $0.mood == calm }),
            ("count == 3 && rank! > 0 (throws on some rows)", #Predicate { $0.count == three && $0.rank! > 0 }),
        ]
        let sorts: [(String, [SortDescriptor<SuiteQueryRow>])] = [
            ("unsorted", []),
            ("by count descending, nickname", [SortDescriptor(\.count, order: .reverse), SortDescriptor(\.nickname)]),
            ("by when, name", [SortDescriptor(\.when), SortDescriptor(\.name)]),
        ]
        var probes: [Probe] = []
        for (index, (text, predicate)) in predicates.enumerated() {
            for (sortIndex, (sortText, sortBy)) in sorts.enumerated() where (index + sortIndex) % 2 == 0 {
                var descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy)
                descriptor.fetchOffset = (index % 3 == 0) ? 2 : nil
                descriptor.fetchLimit = (index % 4 == 1) ? 5 : nil
                probes.append(Probe(descriptor: descriptor, text: "\(text), \(sortText), offset \(descriptor.fetchOffset.map(String.init) ?? "nil"), limit \(descriptor.fetchLimit.map(String.init) ?? "nil")"))
            }
        }
        return probes
    }

    // MARK: Fixed predicates

    static func fixedProbes() -> [Probe] {
        let cafe = "caf\u{E9}", half = UInt64(Int64.max), day0 = SuiteTrip.day(0), day1 = SuiteTrip.day(1)
        let someNames = ["abc", "cafe\u{301}", "ß", "nobody"], someCounts = [0, 3, 1 << 53], someTokens: [UUID?] = [tokens[0], nil]
        let nameSet: Set<String> = ["a", "Zürich"], token0 = tokens[0], tiny = Float(0.1), precise = (1 << 53) + 1
        let calm = SuiteAllTypes.Mood.calm, maxBig = UInt64.max, negativeZero: Double? = -0.0
        let predicates: [(String, Predicate<SuiteQueryRow>)] = [
            ("count > 2", #Predicate { $0.count > 2 }),
            ("count in 2..<7", #Predicate { $0.count >= 2 && $0.count < 7 }),
            ("count == 2^53+1", #Predicate { $0.count == precise }),
            ("score == 0", #Predicate { $0.score == 0 }),
            ("score != score (NaN)", #Predicate { $0.score != $0.score }),
            ("score < 0", #Predicate { $0.score < 0 }),
            ("score <= -0.0", #Predicate { $0.score <= -0.0 }),
            ("score >= 9007199254740992", #Predicate { $0.score >= 9_007_199_254_740_992 }),
            ("ratio > 0.1", #Predicate { $0.ratio > tiny }),
            ("ratio == 0", #Predicate { $0.ratio == 0 }),
            ("big > Int64.max", #Predicate { $0.big > half }),
            ("big == UInt64.max", #Predicate { $0.big == maxBig }),
            ("small < 0", #Predicate { $0.small < 0 }),
            ("name == café", #Predicate { $0.name == cafe }),
            ("name < b", #Predicate { $0.name < "b" }),
            ("name >= Zu", #Predicate { $0.name >= "Zu" }),
            ("name contains é", #Predicate { $0.name.contains("é") }),
            ("name contains e", #Predicate { $0.name.contains("e") }),
            ("name contains empty", #Predicate { $0.name.contains("") }),
            ("name starts with caf", #Predicate { $0.name.starts(with: "caf") }),
            ("name starts with cafe", #Predicate { $0.name.starts(with: "cafe") }),
            ("nickname == nil", #Predicate { $0.nickname == nil }),
            ("nickname == abc", #Predicate { $0.nickname == "abc" }),
            ("nickname ?? empty < b", #Predicate { ($0.nickname ?? "") < "b" }),
            ("nickname?.contains(a) == true", #Predicate { $0.nickname?.contains("a") == true }),
            ("nickname?.starts(with: c) ?? false", #Predicate { $0.nickname?.starts(with: "c") ?? false }),
            ("nickname != nil && nickname! == ß", #Predicate { $0.nickname != nil && $0.nickname! == "ß" }),
            ("names contains name", #Predicate { someNames.contains($0.name) }),
            ("set contains name", #Predicate { nameSet.contains($0.name) }),
            ("counts contains count", #Predicate { someCounts.contains($0.count) }),
            ("tokens contains token", #Predicate { someTokens.contains($0.token) }),
            ("flag", #Predicate { $0.flag }),
            ("!flag", #Predicate { !$0.flag }),
            ("maybe == true", #Predicate { $0.maybe == true }),
            ("maybe != false", #Predicate { $0.maybe != false }),
            ("flag || count > 3", #Predicate { $0.flag || $0.count > 3 }),
            ("!(count > 0 && score > 0)", #Predicate { !($0.count > 0 && $0.score > 0) }),
            ("when > day 0", #Predicate { $0.when > day0 }),
            ("due == nil || due! < day 1", #Predicate { $0.due == nil || $0.due! < day1 }),
            ("due ?? day0 >= day0", #Predicate { ($0.due ?? day0) >= day0 }),
            ("token == token0", #Predicate { $0.token == token0 }),
            ("rank == nil", #Predicate { $0.rank == nil }),
            ("rank ?? -100 > 1", #Predicate { ($0.rank ?? -100) > 1 }),
            ("score < optionalScore ?? 0", #Predicate { $0.score < ($0.optionalScore ?? 0) }),
            ("optionalScore == -0.0", #Predicate { $0.optionalScore == negativeZero }),
            ("mood == calm (enum: not translated)", #Predicate { $0.mood == calm }),
            ("mood == calm && count > 0", #Predicate { $0.mood == calm && $0.count > 0 }),
            ("count > 0 && mood == calm (narrowed)", #Predicate { $0.count > 0 && $0.mood == calm }),
            ("flag && rank! > 0 (throws on some rows)", #Predicate { $0.flag && $0.rank! > 0 }),
            ("rank! > 0 (throws)", #Predicate { $0.rank! > 0 }),
            ("name.count > 3 (not translated)", #Predicate { $0.name.count > 3 }),
            ("true", #Predicate { _ in true }),
        ]
        var reversedName = SortDescriptor(\SuiteQueryRow.name)
        reversedName.order = .reverse   // changes `order` but not how it compares: not translated
        let sorts: [(String, [SortDescriptor<SuiteQueryRow>])] = [
            ("unsorted", []),
            ("by name", [SortDescriptor(\.name)]),
            ("by count descending, nickname", [SortDescriptor(\.count, order: .reverse), SortDescriptor(\.nickname)]),
            ("by score, ratio descending", [SortDescriptor(\.score), SortDescriptor(\.ratio, order: .reverse)]),
            ("by name lexical descending", [SortDescriptor(\.name, comparator: .lexical, order: .reverse)]),
            ("by name with order changed later", [reversedName, SortDescriptor(\.when)]),
        ]
        var probes: [Probe] = []
        for (index, (text, predicate)) in predicates.enumerated() {
            for (sortIndex, (sortText, sortBy)) in sorts.enumerated() where (index + sortIndex) % 2 == 0 {
                var descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy)
                descriptor.fetchOffset = (index % 3 == 0) ? 2 : nil
                descriptor.fetchLimit = (index % 4 == 1) ? 7 : nil
                probes.append(Probe(descriptor: descriptor, text: "\(text), \(sortText), offset \(descriptor.fetchOffset.map(String.init) ?? "nil"), limit \(descriptor.fetchLimit.map(String.init) ?? "nil")"))
            }
        }
        return probes
    }
}

/// A small seeded generator (SplitMix64), the same on every platform.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func pick<C: RandomAccessCollection>(_ values: C) -> C.Element where C.Index == Int {
        values[values.startIndex + Int(next() % UInt64(values.count))]
    }
}
