import Foundation
import StoreProtocol
import StoreBuildingBlocks

/// What lets a save refuse an identifier already in the log without reading the log: a hash of
/// each record's identifier, kept per segment (in memory for the segment being written, as a
/// Bloom filter in a sealed segment's index).
///
/// A fetch returns one model per identifier, so a second record under an id already in the log
/// would show its values in place of the first one's: inserting an existing id is an update,
/// which a log refuses. A filter that says "maybe" costs a read of that segment to confirm; one
/// that says "no" is never wrong.
enum IdentifierHash {
    /// A hash that is the same in every process (unlike `Hasher`): FNV-1a over the entity name and
    /// the JSON of the identifier's canonical form, so that identifiers Swift finds equal (`"café"`
    /// precomposed and decomposed, `0.0` and `-0.0`) hash alike and a second one is refused.
    static func of(_ entity: String, _ key: SnapshotValue) -> UInt64 {
        guard case .uuid(let uuid) = key else { return written(entity, key) }
        // The common id, a UUID: its JSON (`{"$uuid":"<uuidString>"}`) mixed as it is made,
        // without an array of it (a save hashes every insert's id).
        var hash = entityHash(entity)
        for byte in uuidPrefix { hash = mix(hash, byte) }
        let hex = Self.upperHex
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 { hash = mix(hash, UInt8(ascii: "-")) }
                hash = mix(hash, hex[Int(bytes[index] >> 4)])
                hash = mix(hash, hex[Int(bytes[index] & 0xF)])
            }
        }
        hash = mix(hash, UInt8(ascii: "\""))
        return mix(hash, UInt8(ascii: "}"))
    }

    /// `of(_:_:)` for any key, through the bytes `SnapshotJSON` writes for its canonical form
    /// (the reference `of(_:_:)`'s fast path is tested against).
    static func written(_ entity: String, _ key: SnapshotValue) -> UInt64 {
        var hash = entityHash(entity)
        // A key that does not encode cannot be saved either (the save refuses it before this matters).
        let canonical = key.canonical
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48)
        if (try? SnapshotJSON.write(canonical, into: &bytes)) == nil { bytes = Array("\(canonical)".utf8) }
        for byte in bytes { hash = mix(hash, byte) }
        return hash
    }

    /// FNV-1a over the entity name and a 0.
    private static func entityHash(_ entity: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in entity.utf8 { hash = mix(hash, byte) }
        return mix(hash, 0)
    }

    @inline(__always)
    private static func mix(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    private static let uuidPrefix = Array(#"{"$uuid":""#.utf8)
    private static let upperHex = Array("0123456789ABCDEF".utf8)
}

/// A Bloom filter of identifier hashes: 24 bits per identifier and 16 probes, about one false
/// positive in 100,000, so a sealed segment's index grows by 3 bytes per record.
///
/// The rate is what a batch save pays: a save of 1,000 new records is confirmed against a
/// sealed segment (a read of the whole segment) when any one of them is a false positive, so at
/// 1% (10 bits) nearly every such save read every sealed segment; at 1 in 100,000, about 1% do.
enum IdentifierFilter {
    static let bitsPerIdentifier = 24
    static let probes: UInt64 = 16

    static func make(_ hashes: Set<UInt64>) -> Data {
        let bits = max(64, (hashes.count * bitsPerIdentifier + 7) / 8 * 8)
        var bytes = [UInt8](repeating: 0, count: bits / 8)
        for hash in hashes {
            forEachPosition(hash, bits: bits) { position in
                bytes[position / 8] |= 1 << UInt8(position % 8)
                return true
            }
        }
        return Data(bytes)
    }

    static func mayContain(_ filter: Data, _ hash: UInt64) -> Bool {
        let bits = filter.count * 8
        guard bits > 0 else { return true }
        return forEachPosition(hash, bits: bits) { filter[filter.startIndex + $0 / 8] & (1 << UInt8($0 % 8)) != 0 }
    }

    /// Calls `body` with each probe's bit position until it returns `false`; returns whether
    /// every call returned `true`. (No array per call: this runs for every record of a save.)
    @discardableResult
    private static func forEachPosition(_ hash: UInt64, bits: Int, _ body: (Int) -> Bool) -> Bool {
        let step = (hash >> 32 | hash << 32) | 1
        for probe in 0..<probes where !body(Int((hash &+ probe &* step) % UInt64(bits))) { return false }
        return true
    }
}
