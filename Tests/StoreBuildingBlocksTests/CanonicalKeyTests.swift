import Foundation
import StoreBuildingBlocks
import StoreProtocol
import StoreTestSupport
import Testing

/// `CanonicalKey` is the same exactly when the values are `==`: checked over every pair of a few
/// hundred generated values drawn from small pools, so that values equal in Swift but spelled
/// differently (`.int(3)` and `.double(3)`, `-0.0` and `0`, `"é"` composed and decomposed,
/// `Decimal` `1.0` and `1.00`, objects whose names are canonical equivalents) meet often.
@Suite struct CanonicalKeyTests {
    static let strings = [
        "", "a", "e", "café", "cafe\u{301}", "\u{C5}", "\u{212B}", "A\u{30A}",   // Å: precomposed, Ångström sign, A + ring
        "\u{D55C}", "\u{1112}\u{1161}\u{11AB}",                                     // 한 composed and as jamo
        "q\u{323}\u{307}", "q\u{307}\u{323}",                                         // marks in either order: canonically equal
        "1", "t", "n", "#1", "\0", "a\0b", "\"", "\\", "a\",\"b", "[", "{\"a\":1}",
    ]
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 3, 0.1, 0.5, .nan, -.nan, .infinity, -.infinity, 0x1p53, 0x1p53 + 2, 0x1p63, -0x1p63, 0x1p64,
        Double(Int64.max), 1e19, -1e19, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
    ]
    static let integers: [Int64] = [0, 1, -1, 3, 1 << 53, 1 << 53 + 1, .max, .min, .max - 1]
    static let unsigned: [UInt64] = [UInt64(Int64.max) + 1, .max, .max - 1, 1 << 63, 3]   // 3: not canonical, still `==` .int(3)
    static let decimals: [Decimal] = [1, Decimal(string: "1.0")!, Decimal(string: "1.00")!, Decimal(string: "0.1")!, .nan, 0, -1]
    static let dates: [Date] = [0, -0.0, 1, .nan, 0.5, 0x1p53].map { Date(timeIntervalSinceReferenceDate: $0) }
    static let uuids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))]
    static let data = [Data(), Data([0]), Data([0, 1]), Data([0xFF])]

    static func scalar(_ random: inout SeededGenerator) -> SnapshotValue {
        switch Int.random(in: 0..<11, using: &random) {
        case 0: .null
        case 1: .bool(Bool.random(using: &random))
        case 2: .int(integers.randomElement(using: &random)!)
        case 3: .unsigned(unsigned.randomElement(using: &random)!)
        case 4, 5: .double(doubles.randomElement(using: &random)!)
        case 6, 7: .string(strings.randomElement(using: &random)!)
        case 8: .date(dates.randomElement(using: &random)!)
        case 9: Bool.random(using: &random) ? .uuid(uuids.randomElement(using: &random)!) : .data(data.randomElement(using: &random)!)
        default: .decimal(decimals.randomElement(using: &random)!)
        }
    }

    static func value(_ random: inout SeededGenerator, depth: Int) -> SnapshotValue {
        guard depth > 0 else { return scalar(&random) }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .array((0..<Int.random(in: 0...2, using: &random)).map { _ in value(&random, depth: depth - 1) })
        case 1:
            var members: [String: SnapshotValue] = [:]
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                members[strings.randomElement(using: &random)!] = value(&random, depth: depth - 1)
            }
            return .object(members)
        default: return scalar(&random)
        }
    }

    /// Whether a NaN is anywhere in the value (then it is `==` to no value but itself-by-identity).
    static func holdsNaN(_ value: SnapshotValue) -> Bool {
        switch value {
        case .double(let d): d.isNaN
        case .date(let d): d.timeIntervalSinceReferenceDate.isNaN
        case .array(let elements): elements.contains(where: holdsNaN)
        case .object(let members): members.values.contains(where: holdsNaN)
        default: false
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func keysAreEqualExactlyWhenValuesAre(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        // Half the values nested, so that nested values differing in one spelling meet too.
        let values = (0..<500).map { index in Self.value(&random, depth: index % 2 == 0 ? 0 : 2) }
        let keys = values.map { CanonicalKey($0) }
        var equalPairs = 0, mismatches: [String] = []
        for (a, keyA) in zip(values, keys) {
            #expect((keyA == nil) == Self.holdsNaN(a), "\(a) has key \(String(describing: keyA))")
            #expect(keyA.map { !$0.text.unicodeScalars.contains("\0") } ?? true, "the key of \(a) holds a NUL")
            guard let keyA else { continue }
            for (b, keyB) in zip(values, keys) {
                guard let keyB else { continue }
                if a == b { equalPairs += 1 }
                if (keyA == keyB) != (a == b), mismatches.count < 5 {
                    mismatches.append("\(a) == \(b) is \(a == b), keys \(keyA.text) and \(keyB.text)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // The pools are small enough that the pairs are not all trivially different.
        #expect(equalPairs > 2 * values.count)
    }

    /// The spellings the property depends on, named.
    @Test func equalValuesOfDifferentSpellingsShareAKey() {
        let pairs: [(SnapshotValue, SnapshotValue)] = [
            (.string("café"), .string("cafe\u{301}")),
            (.string("\u{212B}"), .string("\u{C5}")),
            (.double(-0.0), .int(0)),
            (.double(3), .int(3)),
            (.double(0x1p63), .unsigned(1 << 63)),
            (.unsigned(3), .int(3)),
            (.date(Date(timeIntervalSinceReferenceDate: -0.0)), .date(Date(timeIntervalSinceReferenceDate: 0))),
            (.decimal(Decimal(string: "1.00")!), .decimal(1)),
            (.array([.double(1), .string("cafe\u{301}")]), .array([.int(1), .string("café")])),
            (.object(["cafe\u{301}": .double(-0.0)]), .object(["café": .int(0)])),
        ]
        for (a, b) in pairs {
            #expect(a == b)
            #expect(CanonicalKey(a) != nil && CanonicalKey(a) == CanonicalKey(b), "\(a) and \(b)")
        }
    }

    @Test func differentValuesHaveDifferentKeys() {
        let pairs: [(SnapshotValue, SnapshotValue)] = [
            (.int(1 << 53 + 1), .double(0x1p53)),        // not through Double
            (.unsigned(.max), .double(0x1p64)),           // UInt64.max rounds to 2^64 as a Double
            (.string("1"), .int(1)),
            (.int(1), .bool(true)),
            (.date(Date(timeIntervalSinceReferenceDate: 1)), .double(1)),
            (.decimal(1), .int(1)),
            (.string("a\0b"), .string("a")),
            (.array([.string("a"), .string("b")]), .array([.string("a\",\"b")])),
            (.array([]), .object([:])),
            (.null, .array([])),
        ]
        for (a, b) in pairs {
            #expect(a != b)
            #expect(CanonicalKey(a) != CanonicalKey(b), "\(a) and \(b)")
        }
    }

    /// NaN is equal to nothing: its key is `nil`, as SQL's `NULL` collides with nothing.
    @Test func aValueHoldingNaNHasNoKey() {
        #expect(CanonicalKey(.double(.nan)) == nil)
        #expect(CanonicalKey([.int(1), .double(.nan)]) == nil)
        #expect(CanonicalKey(.object(["a": .array([.date(Date(timeIntervalSinceReferenceDate: .nan))])])) == nil)
        #expect(CanonicalKey(.decimal(.nan)) != nil)   // Foundation's Decimal.nan == Decimal.nan
        #expect(SnapshotValue.decimal(.nan) == .decimal(.nan))
    }

    /// The key of a unique constraint's values is the key of the array of them.
    @Test func severalValuesAreOneKey() {
        #expect(CanonicalKey([.string("cafe\u{301}"), .double(2)]) == CanonicalKey(.array([.string("café"), .int(2)])))
        #expect(CanonicalKey([.string("a"), .string("b")]) != CanonicalKey([.string("ab")]))
    }
}
