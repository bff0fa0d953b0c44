import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreFiles

/// The base file: the whole store as of journal entry `journalSequence`, as one JSON document
/// with one row or transaction per line (readable, diffable):
///
/// ```json
/// {"format":"swift-data-stores/json-store","version":3,"storeIdentifier":"…","journalSequence":12,
/// "lastTransaction":40,"historyExpiredThrough":0,
/// "schema":{"entities":[{"name":"Trip","attributes":[…],…}],…},
/// "entities":{
/// "Trip":[
/// {"id":{"$uuid":"…"},"name":"Iceland",…}
/// ]},
/// "history":[
/// {"transactionNumber":40,"author":"widget",…}
/// ],"checksum":"1c291ca3"}
/// ```
///
/// The checksum (CRC-32, 8 hex digits) covers every byte before `,"checksum"`: a flipped bit or
/// a lost run of bytes that still leaves valid JSON would otherwise read as other data. Version 1
/// files, which have none, still read.
///
/// `schema` (since version 3) is the `StoredSchema` the rows were written with. Version 3 exists
/// so that a library that cannot compare schemas refuses the file instead of reading migrated
/// rows as its own; version 1 and 2 files read as `StoredSchema/unrecorded`.
struct BaseFile: Codable {
    static let formatName = "swift-data-stores/json-store"
    static let currentVersion = 3
    /// The versions this library reads.
    static let readableVersions: Set<Int64> = [1, 2, 3]
    /// `,"checksum":"xxxxxxxx"}` and the final newline.
    private static let checksumTrailerLength = 24

    var format: String
    var version: Int
    var storeIdentifier: String
    /// The last journal entry folded into this file; replay skips entries up to it.
    var journalSequence: Int64
    var lastTransaction: Int64
    /// The history horizon (`HistoryLog/expiredThrough`), stored as `historyExpiredThrough`.
    var expiredThrough: Int64
    /// The schema the rows were written with; `StoredSchema/unrecorded` before version 3.
    var schema: StoredSchema
    /// Entity name -> rows (attribute values; the primary key is the `id` attribute).
    var entities: [String: [[String: SnapshotValue]]]
    var history: [HistoryRecord]

    /// The keys the base file has always had: the horizon keeps its first release's name.
    enum CodingKeys: String, CodingKey {
        case format, version, storeIdentifier, journalSequence, lastTransaction, schema, entities, history
        case expiredThrough = "historyExpiredThrough"
    }

    /// Decodes a base file, checking that it is one, of a version this library reads.
    /// - Throws: `DataStoreError/Code/corruptStore` naming the file and what is wrong.
    static func decode(_ data: Data, path: String) throws -> BaseFile {
        let top: SnapshotValue
        do { top = try SnapshotJSON.parse(data) } catch {
            throw DataStoreError(.corruptStore,
                "\(path) is not a JSON store: \(error) (damaged, truncated, or another kind of file). "
                + "Restore it from a backup or point the configuration at another file; it was left untouched.")
        }
        guard case .object(let header) = top, header["format"] == .string(formatName) else {
            throw DataStoreError(.corruptStore,
                "\(path) is JSON but not a JSON store (no \"format\": \"\(formatName)\"). "
                + "Point the configuration at another file; this one was left untouched.")
        }
        guard case .int(let version)? = header["version"], readableVersions.contains(version) else {
            throw DataStoreError(.corruptStore,
                "\(path) is a JSON store of format version \(header["version"] ?? .null); this library reads versions "
                + "\(readableVersions.sorted().map(String.init).joined(separator: " and ")). Open it with the library version "
                + "that wrote it; it was left untouched.")
        }
        if version >= 2 {
            let covered = data.count - checksumTrailerLength
            guard covered > 0, case .string(let stored)? = header["checksum"], let expected = UInt32(stored, radix: 16),
                  data.dropFirst(covered).starts(with: Data(",\"checksum\":\"".utf8)),
                  CRC32.checksum(data.prefix(covered)) == expected else {
                throw DataStoreError(.corruptStore,
                    "\(path) is a damaged JSON store: its checksum does not match its contents. Restore it from a backup; "
                    + "it was left untouched.")
            }
        }
        let file: BaseFile
        do {
            // Rows are read straight from the parsed values; only the small fields go through
            // Codable (a Codable pass over 100,000 rows doubled the open time).
            func field<T: Decodable>(_ name: String, _ type: T.Type) throws -> T {
                try SnapshotDecoder().decode(T.self, from: header[name] ?? .null)
            }
            var entities: [String: [[String: SnapshotValue]]] = [:]
            guard case .object(let entityValues)? = header["entities"] else { throw Malformed(what: "entities") }
            for (name, rows) in entityValues {
                guard case .array(let rows) = rows else { throw Malformed(what: "rows of \(name)") }
                entities[name] = try rows.map { row in
                    guard case .object(let values) = row else { throw Malformed(what: "a row of \(name)") }
                    return values
                }
            }
            file = BaseFile(
                format: formatName, version: currentVersion, storeIdentifier: try field("storeIdentifier", String.self),
                journalSequence: try field("journalSequence", Int64.self), lastTransaction: try field("lastTransaction", Int64.self),
                expiredThrough: try field("historyExpiredThrough", Int64.self),
                schema: version >= 3 ? try field("schema", StoredSchema.self) : .unrecorded, entities: entities,
                history: try history(header["history"]))
        } catch {
            throw DataStoreError(.corruptStore,
                "\(path) is a damaged JSON store: \(error). Restore it from a backup; it was left untouched.")
        }
        try file.checkCounters(path: path)
        return file
    }

    /// Throws unless the counters are ones a store reaches (``StoredCounter``) and agree: the
    /// history in transaction order, its deletion mark not past the newest transaction.
    /// - Throws: `DataStoreError/Code/corruptStore` naming the file and the counter.
    private func checkCounters(path: String) throws {
        try StoredCounter.check(journalSequence, "journalSequence", in: path)
        try StoredCounter.check(lastTransaction, "lastTransaction", in: path)
        try StoredCounter.check(expiredThrough, "historyExpiredThrough", in: path)
        var previous: Int64 = 0
        for record in history {
            try StoredCounter.check(record.transactionNumber, "history transaction", minimum: previous + 1, in: path)
            previous = record.transactionNumber
        }
        guard expiredThrough <= max(lastTransaction, previous) else {
            throw DataStoreError(.corruptStore,
                "\(path) says history up to transaction \(expiredThrough) was deleted, past its newest transaction "
                + "\(max(lastTransaction, previous)). Restore the store from a backup; it was left untouched.")
        }
    }

    /// The history records, converted by hand (through `Codable` they were a fifth of an open).
    private static func history(_ value: SnapshotValue?) throws -> [HistoryRecord] {
        guard case .array(let records)? = value else { throw Malformed(what: "history") }
        return try records.map(HistoryRecord.init(snapshotValue:))
    }

    struct Malformed: Error, CustomStringConvertible {
        let what: String
        var description: String { "\(what) is not of the expected shape" }
    }

    /// Encodes the file, one row or record per line.
    func encoded() throws -> Data {
        var out: [UInt8] = []
        func add(_ string: String) { out.append(contentsOf: string.utf8) }
        func add(_ value: SnapshotValue) throws { try SnapshotJSON.write(value, into: &out) }
        add("{\"format\":"); try add(.string(format))
        add(",\"version\":\(version),\"storeIdentifier\":"); try add(.string(storeIdentifier))
        add(",\"journalSequence\":\(journalSequence),\"lastTransaction\":\(lastTransaction)")
        add(",\"historyExpiredThrough\":\(expiredThrough),\n\"schema\":")
        try add(try SnapshotEncoder().encode(schema))
        add(",\n\"entities\":{")
        for (entityIndex, name) in entities.keys.sorted().enumerated() {
            add(entityIndex == 0 ? "\n" : ",\n")
            try add(.string(name))
            add(":[")
            for (rowIndex, row) in (entities[name] ?? []).enumerated() {
                add(rowIndex == 0 ? "\n" : ",\n")
                try add(.object(row))
            }
            add("\n]")
        }
        add("},\n\"history\":[")
        for (index, record) in history.enumerated() {
            add(index == 0 ? "\n" : ",\n")
            try add(record.snapshotValue)
        }
        add("\n]")
        let checksum = String(format: "%08x", CRC32.checksum(out))
        add(",\"checksum\":\"\(checksum)\"}\n")
        return Data(out)
    }
}
