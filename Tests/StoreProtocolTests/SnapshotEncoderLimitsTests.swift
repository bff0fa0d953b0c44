import Foundation
@testable import StoreProtocol
import Testing

/// The snapshot coder keeps every `Float` bit for bit (a NaN is widened by its bits, not by the
/// hardware, which quiets a signaling one) and refuses a value nested deeper than
/// `SnapshotValue.maximumNestingDepth` with `unsupportedValue` instead of recursing without end.
@Suite struct SnapshotEncoderLimitsTests {
    /// NaNs of every sign, signaling bit and a spread of payloads, plus numbers.
    static let floats: [Float] = {
        var floats: [Float] = [0, -0.0, 1.5, .leastNonzeroMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan]
        for sign: UInt32 in [0, 1 << 31] {
            for payload: UInt32 in [1, 2, 0x1F_FFFF, 0x20_0000, 0x20_0001, 0x3F_FFFF, 0x40_0000, 0x40_0001, 0x7F_FFFF, 0x12_3456] {
                floats.append(Float(bitPattern: sign | 0x7F80_0000 | payload))
            }
        }
        return floats
    }()

    struct Wrapped: Codable { var f: Float; var fs: [Float] }

    @Test func everyFloatWidensAndNarrowsBitForBit() throws {
        for f in Self.floats {
            // Numbers widen exactly as `Double(_:)` does; quiet NaNs to the hardware's bits too.
            if !f.isNaN || f.bitPattern & 0x40_0000 != 0 {
                #expect(f.bitExactDouble.bitPattern == Double(f).bitPattern, "\(String(f.bitPattern, radix: 16))")
            }
            #expect(f.bitExactDouble.isNaN == f.isNaN)
            #expect(Float(bitExact: f.bitExactDouble).bitPattern == f.bitPattern, "\(String(f.bitPattern, radix: 16))")
            #expect(try Float(snapshotValue: f.snapshotValue).bitPattern == f.bitPattern)
            let encoded = try SnapshotEncoder().encode(Wrapped(f: f, fs: [f]))
            let decoded = try SnapshotDecoder().decode(Wrapped.self, from: encoded)
            #expect(decoded.f.bitPattern == f.bitPattern && decoded.fs.map(\.bitPattern) == [f.bitPattern],
                    "\(String(f.bitPattern, radix: 16))")
            // Both paths (the @Model one and the Codable one) store the same bits.
            guard case .object(let object) = encoded, case .double(let stored)? = object["f"],
                  case .double(let model) = f.snapshotValue else { Issue.record("\(encoded)"); continue }
            #expect(stored.bitPattern == model.bitPattern)
        }
        // A Double NaN whose payload has no bit a Float keeps narrows to a quiet NaN, not an infinity.
        #expect(Float(bitExact: Double(bitPattern: 0x7FF0_0000_0000_0001)).isNaN)
    }

    /// Nests by recursing in its own `encode(to:)` through nested containers, which the encoder
    /// never sees as separate values: measured when the tree is finished.
    struct NestedByContainers: Encodable {
        var levels: Int
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for _ in 1..<levels { container = container.nestedUnkeyedContainer() }
        }
    }

    /// Nests by recursing through the encoder, as a synthesized recursive `Codable` type does.
    indirect enum List: Encodable {
        case end, node(List)
        static func nested(_ levels: Int) -> List {
            var list = List.end
            for _ in 1..<levels { list = .node(list) }
            return list
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            if case .node(let inner) = self { try container.encode(inner) }
        }
    }

    @Test(arguments: [SnapshotValue.maximumNestingDepth, SnapshotValue.maximumNestingDepth + 1, 20_000])
    func aValueNestedDeeperThanTheLimitIsRefused(levels: Int) throws {
        for value in [NestedByContainers(levels: levels) as any Encodable, List.nested(min(levels, 2_000)) as any Encodable] {
            let depth = value is List ? min(levels, 2_000) : levels
            if depth <= SnapshotValue.maximumNestingDepth {
                _ = try SnapshotEncoder().encode(value)
            } else {
                do {
                    _ = try SnapshotEncoder().encode(value)
                    Issue.record("\(type(of: value)) nested \(depth) levels was encoded")
                } catch let error as DataStoreError {
                    #expect(error.code == .unsupportedValue)
                    #expect(error.message.contains("\(SnapshotValue.maximumNestingDepth)"), "\(error)")
                    #expect(error.message.contains("[0][0]"), "names where: \(error)")
                }
            }
        }
    }
}
