#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import StoreProtocol

/// How the `_pk` column spells a primary key: a `UUID` (the usual key) as its 36 characters,
/// upper-case as `uuidString` writes them; any other value's canonical form
/// (`SnapshotValue.canonical`) in the snapshot JSON codec, so that keys Swift finds equal
/// (`"café"` precomposed and decomposed, `0.0` and `-0.0`) are one row, as in every store.
///
/// The two cannot be confused: JSON text of 36 bytes never has dashes at offsets 8, 13, 18 and
/// 23 between hexadecimal digits (a string starts with a quote, a number has at most an exponent's
/// sign, objects, arrays and literals start otherwise). The UUID spelling is written and read here
/// rather than by Foundation, whose `uuidString` formats with `sprintf`: this is a save's and a
/// fetch's per-row cost. `PrimaryKeyTextTests` checks it against `uuidString` and `UUID(uuidString:)`.
enum PrimaryKeyText {
    /// Whether a UUID's 36 characters have a dash at this offset.
    private static func isDash(_ position: Int) -> Bool {
        position == 8 || position == 13 || position == 18 || position == 23
    }
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The longest `_pk` text, in UTF-8 bytes: the primary key's index holds the text, and
    /// PostgreSQL's B-tree entries hold at most about 2,700 bytes.
    static let maximumBytes = 2_000

    /// A primary key as `_pk` text.
    /// - Throws: `DataStoreError` `.unsupportedValue` for a value the JSON codec cannot hold, or
    ///   an id longer than ``maximumBytes`` in JSON.
    static func text(_ key: SnapshotValue) throws -> String {
        guard case .uuid(let uuid) = key else {
            let text = try EntityTable.json(key.canonical)
            guard text.utf8.count <= maximumBytes else {
                throw DataStoreError(.unsupportedValue,
                    "A model's id is \(text.utf8.count) bytes long; PostgresStore keeps ids of up to \(maximumBytes) bytes (in JSON), "
                    + "the most that PostgreSQL's index of them holds. Use a shorter id (a UUID, or a hash of the long value); nothing was saved.")
            }
            return text
        }
        return withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                var position = 0
                for byte in bytes {
                    if isDash(position) {
                        output[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    output[position] = hexDigits[Int(byte >> 4)]
                    output[position + 1] = hexDigits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    /// A `_pk` text back as the primary key.
    /// - Throws: `DataStoreError` `.corruptStore` for text that is neither spelling.
    static func key(_ text: some Collection<UInt8>, table: String) throws -> SnapshotValue {
        if text.count == 36, let uuid = uuid(text) { return .uuid(uuid) }
        return try EntityTable.parse(text, table: table)
    }

    /// The UUID of 36 characters `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (either case), or `nil`.
    private static func uuid(_ text: some Collection<UInt8>) -> UUID? {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
            var high: UInt8?
            var index = 0
            for (position, character) in text.enumerated() {
                if isDash(position) {
                    guard character == UInt8(ascii: "-") else { return false }
                    continue
                }
                guard let nibble = nibble(character) else { return false }
                if let first = high {
                    output[index] = first << 4 | nibble
                    index += 1
                    high = nil
                } else {
                    high = nibble
                }
            }
            return index == 16
        }
        return parsed ? UUID(uuid: bytes) : nil
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
#endif
