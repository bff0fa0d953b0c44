import Foundation
import StoreBuildingBlocks
import Testing

/// `SnapshotJSON.writeString(_:into:)` steps over bytes that need no escape eight at a time.
/// Its bytes must be those of the byte-at-a-time escaper every file so far was written with
/// (`reference` below, the loop it replaced): the same escapes at every position.
@Suite struct SnapshotJSONStringWriterTests {
    /// The escaper before the eight-byte steps, byte by byte; `skipping` leaves one byte
    /// unescaped (the negative control's broken variant).
    static func reference(_ string: String, skipping: UInt8? = nil) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in string.utf8 {
            guard byte != skipping, byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case UInt8(ascii: "\n"): out += Array("\\n".utf8)
            case UInt8(ascii: "\r"): out += Array("\\r".utf8)
            case UInt8(ascii: "\t"): out += Array("\\t".utf8)
            default: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    static func written(_ string: String) -> [UInt8] {
        var out: [UInt8] = []
        SnapshotJSON.writeString(string, into: &out)
        return out
    }

    /// Every byte that needs an escape (and its neighbours 0x1F/0x20, 0x21/0x23, 0x5B/0x5D,
    /// 0x7F, multi-byte scalars) at every position of strings up to 40 bytes long, alone, in
    /// runs, and at the end of a word: each written as the reference writes it.
    static let pieces: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        + ["\"", "\\", " ", "!", "#", "[", "]", "\u{7F}", "é", "e\u{301}", "€", "😀", "\u{10FFFF}", "\u{2028}", "a", "Z", "0", "/"]

    @Test func everyEscapeAtEveryPositionIsWrittenAsTheReferenceWritesIt() {
        var checked = 0
        for length in 0...40 {
            for piece in Self.pieces {
                for position in 0...length {
                    let string = String(repeating: "a", count: position) + piece + String(repeating: "b", count: length - position)
                    #expect(Self.written(string) == Self.reference(string), "\(Array(string.utf8))")
                    checked += 1
                }
            }
        }
        #expect(checked > 10_000)
    }

    @Test func randomStringsAreWrittenAsTheReferenceWritesThem() {
        for _ in 0..<5_000 {
            let string = (0..<Int.random(in: 0...60)).map { _ in Self.pieces.randomElement()! }.joined()
                + String(repeating: "x", count: Int.random(in: 0...20))
            #expect(Self.written(string) == Self.reference(string), "\(Array(string.utf8))")
        }
        let long = String(repeating: "a long plain string ", count: 10_000) + "\u{1F}\"" + String(repeating: "é", count: 999)
        #expect(Self.written(long) == Self.reference(long))
    }

    /// Negative control: a writer that leaves one escapable byte alone differs from the reference
    /// on these strings, for every such byte (so the comparisons above would catch it).
    @Test func aWriterThatMissesOneEscapeIsCaught() {
        for skipped in (0..<0x20).map(UInt8.init) + [UInt8(ascii: "\""), UInt8(ascii: "\\")] {
            let caught = (0...16).contains { position in
                let string = String(repeating: "a", count: position) + String(UnicodeScalar(skipped)) + "bbbbbbbbb"
                return Self.written(string) != Self.reference(string, skipping: skipped)
            }
            #expect(caught, "byte \(skipped)")
        }
    }
}
