import DataStores
import Foundation

/// A 64-bit FNV-1a digest of a value's canonical encoding: equal values (as `SnapshotValue`'s `==`
/// finds them) digest alike, so a replica can tell that a row's value is no longer the one its
/// clock dates without keeping the value twice.
enum ValueDigest {
    /// The digest of `value` (`nil`, absent, reads as `.null`).
    static func of(_ value: SnapshotValue?) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalJSON(value ?? .null).utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The canonical JSON of a value: its canonical form, keys sorted. Also the text that names a
    /// primary key in the sync models.
    static func canonicalJSON(_ value: SnapshotValue) -> String {
        // Encoding a SnapshotValue cannot fail: every case has a JSON form.
        (try? encoder.encode(value.canonical)).map { String(decoding: $0, as: UTF8.self) } ?? value.description
    }

    /// The value a canonical JSON text names.
    static func value(fromCanonicalJSON text: String) throws -> SnapshotValue {
        try JSONDecoder().decode(SnapshotValue.self, from: Data(text.utf8))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}
