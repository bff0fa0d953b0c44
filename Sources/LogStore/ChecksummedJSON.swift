import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreFiles

/// A small JSON object file that carries the CRC-32 of its own content under `"checksum"`: the
/// log's identity file and its segment index files.
///
/// Both steer what the log does with acknowledged records: an index tells a read which segments
/// to skip and how many records they hold, the identity file tells a writer which segments
/// retention already dropped (and may delete). A damaged one that still parses as JSON would be
/// believed, so each carries a checksum: the CRC-32 of the object without its `"checksum"` key, as
/// `SnapshotJSON` writes it (keys sorted, so the same content always gives the same bytes).
enum ChecksummedJSON {
    static let key = "checksum"

    /// `value`'s JSON object with its checksum added.
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        guard case .object(var object) = try SnapshotEncoder().encode(value) else {
            throw DataStoreError(.ioFailure, "\(T.self) does not encode as a JSON object; nothing was written.")
        }
        object[key] = .int(Int64(CRC32.checksum(try SnapshotJSON.encode(.object(object)))))
        return try SnapshotJSON.encode(.object(object))
    }

    /// What reading such a file found.
    enum Contents {
        /// The object (without its checksum), whose checksum holds.
        case verified(SnapshotValue)
        /// An object with no checksum at all: written before checksums were (or damaged there).
        case unchecked([String: SnapshotValue])
        /// Not a JSON object, or a checksum that does not hold.
        case damaged
    }

    static func read(_ data: Data) -> Contents {
        guard let value = try? SnapshotJSON.parse(data), case .object(var object) = value else { return .damaged }
        guard let stored = object.removeValue(forKey: key) else { return .unchecked(object) }
        guard case .int(let checksum) = stored, let canonical = try? SnapshotJSON.encode(.object(object)),
              checksum == Int64(CRC32.checksum(canonical)) else {
            return .damaged
        }
        return .verified(.object(object))
    }
}
