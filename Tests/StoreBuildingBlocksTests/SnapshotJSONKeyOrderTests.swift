import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreTestSupport
import Testing

/// `SnapshotJSON.write(_:keys:depth:at:into:)` (a log record's rows) writes an object whose keys
/// are those of the last one by walking the object once and matching each key with its sorted
/// place by its bytes (`KeyOrder.place`), not by a hashed lookup per key. Its bytes must be those
/// of the general path (`SnapshotJSON.write(.object(row), into:)`), which every log file holds,
/// whatever order the dictionaries iterate their keys in.
@Suite struct SnapshotJSONKeyOrderTests {
    /// Rows with the keys of `keys`, inserted in random orders into dictionaries of random
    /// capacities (so that they iterate in different orders), with values of every kind: nil,
    /// NaN, ±0, infinities, unicode, large numbers, dates, UUIDs, data, decimals, nesting.
    static func rows(_ count: Int, keys: [String], _ values: inout RandomSnapshotValues<SystemRandomNumberGenerator>) -> [[String: SnapshotValue]] {
        let edges: [SnapshotValue] = [
            .null, .double(.nan), .double(-.nan), .double(0), .double(-0.0), .double(.infinity), .double(-.infinity),
            .double(.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude), .int(.max), .int(.min), .unsigned(.max),
            .string(""), .string("café"), .string("cafe\u{301}"), .string("😀\u{0}\"\\\n"), .string(String(repeating: "long ", count: 400)),
            .date(Date(timeIntervalSince1970: 1_767_225_600)), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
            .date(Date(timeIntervalSinceReferenceDate: .nan)), .uuid(UUID()), .data(Data()), .decimal(.nan), .decimal(Decimal(string: "-12.50")!),
        ]
        return (0..<count).map { _ in
            var row = [String: SnapshotValue](minimumCapacity: Int.random(in: 0...40))
            for key in keys.shuffled() { row[key] = Bool.random() ? edges.randomElement()! : values.value(depth: 2) }
            return row
        }
    }

    /// Each row written through one `KeyOrder` (as a record writes its rows), beside the general path.
    static func written(_ rows: [[String: SnapshotValue]], trustsGuesses: Bool = false) throws -> (direct: [[UInt8]], general: [[UInt8]]) {
        var order = SnapshotJSON.KeyOrder()
        order.trustsGuesses = trustsGuesses
        var direct: [[UInt8]] = [], general: [[UInt8]] = []
        for row in rows {
            var bytes: [UInt8] = []
            try SnapshotJSON.write(row, keys: &order, depth: 0, at: [], into: &bytes)
            direct.append(bytes)
            bytes = []
            try SnapshotJSON.write(.object(row), into: &bytes)
            general.append(bytes)
        }
        return (direct, general)
    }

    /// Whether the rows iterate their keys in more than one order (else the test proves little).
    static func ordersDiffer(_ rows: [[String: SnapshotValue]]) -> Bool {
        Set(rows.map { Array($0.keys) }).count > 1
    }

    static let keySets: [[String]] = [
        ["id", "name", "destination", "startDate", "endDate", "visits"],
        ["a", "b"], ["only"], ["", "é", "e\u{301}x", "😀", "a long key of more than fifteen bytes", "Z", "z", "\u{0}", "\""],
        (0..<40).map { "attribute\($0)" },
    ]

    @Test(arguments: keySets)
    func rowsInAnyKeyOrderWriteTheBytesOfTheGeneralPath(_ keys: [String]) throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        let rows = Self.rows(200, keys: keys, &values)
        let (direct, general) = try Self.written(rows)
        #expect(direct == general)
        if keys.count > 1 { #expect(Self.ordersDiffer(rows), "control: the rows iterate their keys in more than one order") }
    }

    /// A key Swift finds equal to the last row's but spelled otherwise (precomposed `é` and `e`
    /// with a combining accent) is written in its own spelling, as the general path writes it.
    /// (Before the walk, a row's value was looked up under the last row's key, and the last
    /// row's spelling was written.)
    @Test func aKeyEqualButSpelledOtherwiseIsWrittenInItsOwnSpelling() throws {
        let rows: [[String: SnapshotValue]] = [
            ["caf\u{E9}": .int(1), "id": .int(1)], ["cafe\u{301}": .int(2), "id": .int(2)], ["caf\u{E9}": .int(3), "id": .int(3)],
            ["\u{212B}": .int(4), "id": .int(4)], ["A\u{30A}": .int(5), "id": .int(5)],
        ]
        let (direct, general) = try Self.written(rows)
        #expect(direct == general)
        #expect(String(decoding: direct[1], as: UTF8.self).contains("cafe\u{301}"))
    }

    /// Rows whose keys differ from the last row's (more, fewer, other, `$` keys) between rows of
    /// the same keys: each written as the general path writes it.
    @Test func rowsOfOtherKeysBetweenWriteTheBytesOfTheGeneralPath() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        let keys = Self.keySets[0]
        var rows = Self.rows(60, keys: keys, &values)
        rows.insert(rows[0].merging(["more": .int(1)]) { $1 }, at: 10)
        rows.insert(rows[0].filter { $0.key != "name" }, at: 20)
        rows.insert(rows[0].filter { $0.key != "name" }.merging(["other": .null]) { $1 }, at: 30)
        rows.insert(rows[0].merging(["$tag": .int(3)]) { $1 }, at: 40)
        rows.insert([:], at: 50)
        let (direct, general) = try Self.written(rows)
        #expect(direct == general)
    }

    /// Negative control: a writer that takes each key for the one at its guessed place without
    /// comparing them (`KeyOrder.trustsGuesses`) writes values under the wrong keys once the rows
    /// iterate in another order, and the comparison above catches it.
    @Test func aWriterThatTrustsItsGuessesIsCaught() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        let rows = Self.rows(200, keys: Self.keySets[0], &values)
        try #require(Self.ordersDiffer(rows))
        let (direct, general) = try Self.written(rows, trustsGuesses: true)
        #expect(direct != general)
    }
}
