import Foundation
import StoreBuildingBlocks
import StoreProtocol
import StoreTestSupport
import Testing

/// `SnapshotValue.canonical`, where the rules of which spellings `==` finds equal live: two
/// values without a NaN are `==` exactly when their canonical forms encode to the same JSON
/// bytes (what PostgresStore's `_pk` and `_uN` columns and LogStore's identifier hash hold).
/// Over the values `CanonicalKeyTests` generates, whose pools make equal values of different
/// spellings meet often.
@Suite struct CanonicalFormTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func canonicalBytesAreEqualExactlyWhenValuesAre(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let values = (0..<500).map { index in CanonicalKeyTests.value(&random, depth: index % 2 == 0 ? 0 : 2) }
            .filter { !CanonicalKeyTests.holdsNaN($0) }
        let encoded = try values.map { try SnapshotJSON.encode($0.canonical) }
        var equalPairs = 0, mismatches: [String] = []
        for (a, bytesA) in zip(values, encoded) {
            for (b, bytesB) in zip(values, encoded) {
                if a == b { equalPairs += 1 }
                if (bytesA == bytesB) != (a == b), mismatches.count < 5 {
                    mismatches.append("\(a) == \(b) is \(a == b), canonical JSON \(String(decoding: bytesA, as: UTF8.self)) and \(String(decoding: bytesB, as: UTF8.self))")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(equalPairs > 2 * values.count)
    }

    /// `holdsNaN` finds a NaN at any depth (the test's own walk, `CanonicalKeyTests.holdsNaN`,
    /// is the reference), and a value without one equals itself.
    @Test(arguments: [UInt64(5), 6])
    func holdsNaNFindsANaNAtAnyDepth(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var found = 0
        for _ in 0..<500 {
            let value = CanonicalKeyTests.value(&random, depth: 2)
            #expect(value.holdsNaN == CanonicalKeyTests.holdsNaN(value), "\(value)")
            if value.holdsNaN { found += 1 } else { #expect(value == value) }
        }
        #expect(found > 10)
    }

    /// `Decimal`s equal by value are one canonical `Decimal`, spelt without trailing zeros.
    @Test func decimalsAreCanonicalByValue() throws {
        let decimals = [Decimal(1), Decimal(string: "1.0")!, Decimal(string: "1.000")!, Decimal(sign: .plus, exponent: -2, significand: 100)]
        let spellings = try Set(decimals.map { try SnapshotJSON.encode(SnapshotValue.decimal($0).canonical) })
        #expect(spellings == [Data(#"{"$decimal":"1"}"#.utf8)])
        #expect(SnapshotValue.decimal(Decimal(string: "12.50")!).canonical == .decimal(Decimal(string: "12.5")!))
        #expect(SnapshotValue.decimal(.nan).canonical == .decimal(.nan))
    }
}
