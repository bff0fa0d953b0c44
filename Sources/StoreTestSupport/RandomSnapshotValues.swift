import Foundation
import StoreProtocol

/// Random snapshot values of every case, weighted towards the edges a JSON codec gets wrong:
/// NaNs and infinities (with payloads), -0.0, subnormals, integers at the ends of their range,
/// `UInt64` above `Int64.max`, strings with escapes, control characters, `$` prefixes and
/// characters outside the Basic Multilingual Plane (surrogate pairs in `\u` form), dates with
/// sub-second bits and non-finite dates, `Data`, `Decimal` (NaN too), and arrays and objects
/// nested a few levels (as `Codable` composites are stored), objects with `$` keys among them.
public struct RandomSnapshotValues<Generator: RandomNumberGenerator> {
    public var generator: Generator

    public init(_ generator: Generator) { self.generator = generator }

    /// One value; `depth` bounds how far arrays and objects nest.
    public mutating func value(depth: Int = 3) -> SnapshotValue {
        switch Int.random(in: 0..<(depth > 0 ? 13 : 11), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(integer())
        case 3: return .unsigned(pick([0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max, UInt64.random(in: 0...UInt64.max, using: &generator)]))
        case 4: return .double(double())
        case 5, 6: return .string(string())
        case 7: return .date(Date(timeIntervalSinceReferenceDate: Bool.random(using: &generator) ? double() : Double.random(in: -1e10...1e10, using: &generator)))
        case 8: return .uuid(UUID())
        case 9: return .data(Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        case 10: return .decimal(pick([.nan, 0, -1, Decimal(string: "12.50")!, Decimal(string: "-0.000000000000000000001")!, .greatestFiniteMagnitude,
                                       Decimal(Int.random(in: -1_000_000...1_000_000, using: &generator)) / 1000]))
        case 11: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in value(depth: depth - 1) })
        default: return .object(object(depth: depth - 1))
        }
    }

    /// An object of up to six keys, a `$` key now and then.
    public mutating func object(depth: Int = 2) -> [String: SnapshotValue] {
        var object: [String: SnapshotValue] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &generator) {
            object[Int.random(in: 0..<8, using: &generator) == 0 ? "$" + string() : string()] = value(depth: depth)
        }
        return object
    }

    public mutating func integer() -> Int64 {
        pick([0, -1, 1, .max, .min, 999_999_999_999_999_999, -999_999_999_999_999_999, 1_000_000_000_000_000_000,
              Int64.random(in: .min ... .max, using: &generator), Int64.random(in: -1000...1000, using: &generator)])
    }

    public mutating func double() -> Double {
        pick([0.0, -0.0, .nan, -.nan, Double(nan: 0x1234, signaling: false), Double(nan: 1, signaling: true), .infinity, -.infinity,
              .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude, 0.1, 1e16, 1e-300, 123.456,
              Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator)),
              Double.random(in: -1e6...1e6, using: &generator)])
    }

    public mutating func string() -> String {
        let pieces = ["a", "Trip", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "€",
                      "😀", "\u{10FFFF}", "\u{FFFD}", "\u{2028}", "$", "{", "}", "[", ",", ":", " ", "0", "-1.5e3", "\\u0041"]
        return (0..<Int.random(in: 0...6, using: &generator)).map { _ in pick(pieces) }.joined()
    }

    private mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &generator)] }
}
