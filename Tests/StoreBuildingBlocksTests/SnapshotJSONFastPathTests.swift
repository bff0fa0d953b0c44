import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreTestSupport
import Testing

/// What `SnapshotJSON.parse(_:fastPaths:)` gives: the value, or where and why it refused the text.
private enum Outcome {
    case value(SnapshotValue)
    case refused(offset: Int, reason: String)
    case otherError(String)

    init(_ text: [UInt8], fastPaths: Bool) {
        do {
            self = .value(try SnapshotJSON.parse(text, fastPaths: fastPaths))
        } catch let error as SnapshotJSON.SyntaxError {
            self = .refused(offset: error.offset, reason: error.reason)
        } catch {
            self = .otherError("\(error)")
        }
    }
}

/// Whether the fast paths read `text` exactly as the reference path does: the same value bit for
/// bit, or the same error at the same byte for the same reason.
private func readsAlike(_ text: [UInt8]) -> Bool {
    switch (Outcome(text, fastPaths: true), Outcome(text, fastPaths: false)) {
    case let (.value(fast), .value(reference)): return sameBits(fast, reference)
    case let (.refused(fastOffset, fastReason), .refused(offset, reason)): return fastOffset == offset && fastReason == reason
    default: return false
    }
}

/// Issue 30: the parser reads a date's seconds and the `$date`, `$date2001` and `$uuid` tags the
/// writer writes without making a string for them. Each fast path is checked against the path
/// it bypasses (`fastPaths: false`): `Double(_:)` for numbers, the general object reader for tags.
@Suite struct SnapshotJSONFastPathTests {
    /// A decimal number's text, with the edges of the fast path: up to 20 integer digits, leading
    /// zeros, up to 25 fraction digits, exponents with and without signs, and malformed shapes.
    static func randomNumberText(_ generator: inout SeededGenerator) -> String {
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
        }
        var text = Bool.random(using: &generator) ? "-" : ""
        text += Int.random(in: 0..<6, using: &generator) == 0 ? "0" + digits(Int.random(in: 0...3, using: &generator)) : ""
        text += digits(Int.random(in: 0...20, using: &generator))
        if Int.random(in: 0..<4, using: &generator) != 0 { text += "." + digits(Int.random(in: 0...25, using: &generator)) }
        if Int.random(in: 0..<3, using: &generator) == 0 {
            text += ["e", "E"].randomElement(using: &generator)! + ["", "+", "-"].randomElement(using: &generator)!
            text += digits(Int.random(in: 0...3, using: &generator))
        }
        return text
    }

    @Test func exactDoublesReadAsDoubleDoes() {
        var generator = SeededGenerator(seed: 30)
        var fast = 0
        let edges = [
            "0.0", "-0.0", "0.5", "-0.5", "1767225600.0", "1767225600.5", "786918000.123", "1764379865.1234567",
            "9007199254740991.0", "9007199254740992.0", "9007199254740993.0", "0.1", "0.3", "2.2250738585072014e-308",
            "1e22", "1e23", "1e-22", "1e-23", "123456789012345.6e7", "1.7976931348623157e308", "4.9e-324", "1e999",
            "1.0000000000000000000000001", "00.5", "5.", ".5", "1e", "1e+", "1e-", "-", "--1", "1.5e3-", "1.5.5", "1ee5",
            "0.000000000000000000001", "0.0000000000000000000001", "0.00000000000000000000001", "100000000000000000000.0",
        ]
        let texts = edges + (0..<20_000).map { _ in Self.randomNumberText(&generator) }
        for text in texts {
            let exact = Array(text.utf8).withUnsafeBufferPointer { SnapshotJSON.Parser.exactDouble($0) }
            guard let exact else { continue }
            fast += 1
            let reference = Double(text)
            #expect(reference?.bitPattern == exact.bitPattern, "\(text): \(exact) against Double's \(String(describing: reference))")
        }
        #expect(fast > 5_000, "the sample reaches the fast path (\(fast) times)")
    }

    /// Every text, valid or damaged, reads as the reference reads it.
    @Test func parsingReadsAsTheReferenceDoes() throws {
        var generator = SeededGenerator(seed: 3030)
        var values = RandomSnapshotValues(SeededGenerator(seed: 303))
        let damage: [UInt8] = Array(#"{}[]",:$ -+.eE0159"\ufnt"#.utf8)
        var compared = 0
        for _ in 0..<3_000 {
            let value: SnapshotValue
            if Bool.random(using: &generator) {
                // Rows as stores write them: dates, ids and numbers among plain values.
                value = .object(["id": .uuid(UUID()), "startDate": .date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &generator))),
                                 "whole": .date(Date(timeIntervalSince1970: Double(Int.random(in: -100_000...2_000_000_000, using: &generator)))),
                                 "visits": .int(values.integer()), "ratio": .double(values.double()), "other": values.value()])
            } else {
                value = values.value()
            }
            let text = Array(try SnapshotJSON.encode(value))
            #expect(sameBits(try SnapshotJSON.parse(text, fastPaths: true), value), "\(value) reads back")
            #expect(readsAlike(text), "\(String(decoding: text, as: UTF8.self))")
            // The same text damaged: a byte changed, removed or cut off, or white space added.
            for _ in 0..<4 where !text.isEmpty {
                var damaged = text
                let at = Int.random(in: 0..<damaged.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: damaged[at] = damage.randomElement(using: &generator)!
                case 1: damaged.remove(at: at)
                case 2: damaged.removeSubrange(at...)
                default: damaged.insert(UInt8(ascii: " "), at: at)
                }
                #expect(readsAlike(damaged), "\(String(decoding: damaged, as: UTF8.self))")
                compared += 1
            }
        }
        #expect(compared > 10_000)
    }

    /// The near misses of each tag's fast path, each read as the general path reads it.
    @Test(arguments: [
        #"{"$date":1767225600.5}"#, #"{"$date":1767225600}"#, #"{"$date":-0.0}"#, #"{"$date":-0}"#, #"{"$date":1e999}"#,
        #"{"$date":-1e999}"#, #"{"$date":1.5e3}"#, #"{"$date":12345678901234567890}"#, #"{"$date":1,}"#, #"{"$date":1 }"#,
        #"{"$date": 1}"#, #"{"$date":1,"x":2}"#, #"{"$date":"1"}"#, #"{"$date":null}"#, #"{"$date":-}"#, #"{"$date":1"#,
        #"{"$date":1}x"#, #"{"$date":1]"#, #"{"$date":+1}"#, #"{"$date":.5}"#, #"{"$date":1.}"#, #"{"$datex":1}"#, #"{"$dat":1}"#,
        #"{"$date2001":786918000.123}"#, #"{"$date2001":"nan"}"#, #"{"$date2001":"inf"}"#, #"{"$date2001":1e400}"#,
        #"{"$date2001":1,"$date":2}"#, #"{"$date":{"$date":1}}"#, #"{"$uuid":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}"#,
        #"{"$uuid":"6BA7B810-9DAD-11D1-80B4-00C04FD430C"}"#, #"{"$uuid":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8","x":1}"#,
        #"{"$uuidx":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}"#, #"{"$uuid":5}"#, #"{"$u"#, #"{"$"#, #"{""#, #"{"#,
        #"{"\u0024date":1}"#, #"[{"$date":1},{"$date2001":2.5},{"$uuid":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}]"#,
        #"{"$date":123456789012345678}"#, #"{"$date":1234567890123456789}"#, #"{"$date":9007199254740993}"#,
        #"{"$date":-9007199254740991}"#, #"{"$date":0.1234567890123456789}"#, #"{"$date":1.23456789012345678}"#,
        #"{"$date":12345678.9012345678}"#, #"{"$date":9007199.254740993}"#, #"{"$date":-0.5}"#, #"{"$date":007.50}"#,
        #"{"$date":1.5e3}"#, #"{"$date":1.5-}"#, #"{"$date":1-}"#, #"{"$date":--1}"#, #"{"$date":1.2.3}"#, #"{"$date2001"#,
        #"{"$date2001":-1.25}"#, #"{"$date200":1}"#, #"{"$date2002":1}"#, #"{"$dateX001":1}"#,
        #"{"$object":{"$date":1}}"#, #"{"a":{"$date":1767225600.25},"b":{"$date":1767225600.25,"c":1}}"#,
    ])
    func tagsReadAsTheGeneralPathReadsThem(_ text: String) {
        #expect(readsAlike(Array(text.utf8)))
    }

    /// The writer's numbers: `writeInteger` writes `String(_:)`'s text, `writeFinite` that of
    /// `description` (whole numbers below 2^53 by their digits, the rest through `description`).
    @Test func numbersAreWrittenAsTheirDescriptions() {
        var generator = SeededGenerator(seed: 31)
        var integers: [Int64] = [0, 1, 9, 10, -1, -9, -10, 99, 100, .max, .min, .max - 1, .min + 1, 1_767_225_600]
        integers += (0..<5_000).map { _ in Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator) }
        for integer in integers {
            var out: [UInt8] = []
            SnapshotJSON.writeInteger(integer, into: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(integer))
        }
        var doubles: [Double] = [0, -0.0, 1, -1, 0.5, 1_767_225_600, 1_767_225_600.5, 9_007_199_254_740_991, 9_007_199_254_740_992,
                                 -9_007_199_254_740_992, 9_007_199_254_740_994, 1e16, 1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                                 -.greatestFiniteMagnitude, 4_503_599_627_370_495.5, 0.1]
        doubles += (0..<5_000).map { _ in
            let whole = Double(Int64.random(in: -(1 << 54)...(1 << 54), using: &generator) >> Int64.random(in: 0...54, using: &generator))
            return Bool.random(using: &generator) ? whole : whole + Double.random(in: -1...1, using: &generator)
        }
        for double in doubles {
            var out: [UInt8] = []
            SnapshotJSON.writeFinite(double, into: &out)
            #expect(String(decoding: out, as: UTF8.self) == double.description)
        }
    }

    /// `writeUUIDString` writes `uuidString` from the bytes.
    @Test func uuidsAreWrittenAsTheirUUIDStrings() {
        var generator = SeededGenerator(seed: 33)
        let uuids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
            + (0..<2_000).map { _ in UUID(uuid: generator.uuidBytes()) }
        for uuid in uuids {
            var out: [UInt8] = [7]
            SnapshotJSON.writeUUIDString(uuid, into: &out)
            #expect(String(decoding: out, as: UTF8.self) == "\u{7}\"\(uuid.uuidString)\"")
        }
    }

    /// `writeString` appends runs of plain bytes whole: the same bytes as escaping byte by byte
    /// (`SnapshotJSONStringWriterTests.reference`).
    @Test func stringsAreEscapedAsByteByByte() throws {
        var values = RandomSnapshotValues(SeededGenerator(seed: 32))
        let strings = ["", "a", "Trip 12 along the coast", "Valparaíso, Chile", "\"", "\\", "\u{0}", "\u{1F}x\u{7F}", "😀\n\r\t"]
            + (0..<3_000).map { _ in values.string() }
        for string in strings {
            var out: [UInt8] = []
            SnapshotJSON.writeString(string, into: &out)
            #expect(out == SnapshotJSONStringWriterTests.reference(string), "\(string.debugDescription)")
            #expect(try sameBits(SnapshotJSON.parse(out), .string(string)))
        }
    }

    /// `uuidAlone()` reads each hex digit through a table: every near miss of a UUID's text
    /// reads as `Codable` (`SnapshotTag.uuid(_:)`) reads it.
    @Test func uuidsReadAsCodableReadsThem() {
        var generator = SeededGenerator(seed: 34)
        let replacements = Array("0123456789abcdefABCDEFgG-+ x\u{0}é".unicodeScalars)
        for round in 0..<3_000 {
            var text = Array(UUID(uuid: generator.uuidBytes()).uuidString.unicodeScalars)
            if round % 2 == 0 { text = Array(String(String.UnicodeScalarView(text)).lowercased().unicodeScalars) }
            if round % 3 != 0 { text[Int.random(in: 0..<text.count, using: &generator)] = replacements.randomElement(using: &generator)! }
            let json = #"{"$uuid":""# + String(String.UnicodeScalarView(text)) + #""}"#
            let direct = try? SnapshotJSON.parse(Data(json.utf8))
            let codable = try? JSONDecoder().decode(SnapshotValue.self, from: Data(json.utf8))
            #expect(direct.map { a in codable.map { sameBits(a, $0) } ?? false } ?? (codable == nil), "\(json)")
        }
    }

    /// A date tag as deep as the parser reads, and one level deeper: refused alike.
    @Test func tagsAtTheDepthLimitReadAlike() {
        for depth in (SnapshotJSON.maximumDepth + 60)...(SnapshotJSON.maximumDepth + 66) {
            for tag in [#"{"$date":1}"#, #"{"$date2001":1.5}"#, #"{"$uuid":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}"#] {
                let text = String(repeating: "[", count: depth) + tag + String(repeating: "]", count: depth)
                #expect(readsAlike(Array(text.utf8)), "\(tag) \(depth) deep")
            }
        }
    }
}
