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
    /// Entity name -> the query-attribute columns of its rows, filled while they were read
    /// (`decode(_:path:schema:)`, for the entities of its schema whose rows it read plainly).
    var columns: [String: RowColumns] = [:]
    var history: [HistoryRecord]

    /// The keys the base file has always had: the horizon keeps its first release's name.
    enum CodingKeys: String, CodingKey {
        case format, version, storeIdentifier, journalSequence, lastTransaction, schema, entities, history
        case expiredThrough = "historyExpiredThrough"
    }

    /// Decodes a base file, checking that it is one, of a version this library reads. The rows
    /// of `schema`'s entities are read into their query-attribute columns too (`columns`).
    /// - Throws: `DataStoreError/Code/corruptStore` naming the file and what is wrong.
    static func decode(_ data: Data, path: String, schema: Schema? = nil) throws -> BaseFile {
        let parsed: Parsed
        do { parsed = try read(data, schema: schema) } catch {
            throw DataStoreError(.corruptStore,
                "\(path) is not a JSON store: \(error) (damaged, truncated, or another kind of file). "
                + "Restore it from a backup or point the configuration at another file; it was left untouched.")
        }
        guard let header = parsed.header, header["format"] == .string(formatName) else {
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
            let entities = try parsed.entities.rows()
            var read = BaseFile(
                format: formatName, version: currentVersion, storeIdentifier: try field("storeIdentifier", String.self),
                journalSequence: try field("journalSequence", Int64.self), lastTransaction: try field("lastTransaction", Int64.self),
                expiredThrough: try field("historyExpiredThrough", Int64.self),
                schema: version >= 3 ? try field("schema", StoredSchema.self) : .unrecorded, entities: entities,
                history: try (parsed.history ?? .value(.null)).records())
            read.columns = parsed.columns
            file = read
        } catch {
            throw DataStoreError(.corruptStore,
                "\(path) is a damaged JSON store: \(error). Restore it from a backup; it was left untouched.")
        }
        try file.checkCounters(path: path)
        return file
    }

    /// What reading a base file's JSON gave: its small fields, and its rows apart.
    private struct Parsed {
        /// The top-level object without `entities`; `nil` when the file's value is not an object.
        var header: [String: SnapshotValue]?
        var entities = Entities.absent
        /// The columns read with the rows of `entities`.
        var columns: [String: RowColumns] = [:]
        /// The `history` member; `nil` when absent.
        var history: HistoryInput?
    }

    /// The `entities` member, read straight into rows when it has the shape this file writes.
    private enum Entities {
        case absent
        case rows([String: [[String: SnapshotValue]]])
        /// Of that shape, but for what `Malformed` names.
        case malformed(Malformed)
        /// Something else, read as a value (an object with `$` keys, say), judged by `rows()`.
        case other(SnapshotValue)

        /// Entity name -> rows.
        /// - Throws: `Malformed` when the member is missing or not of that shape.
        func rows() throws -> [String: [[String: SnapshotValue]]] {
            switch self {
            case .absent: throw Malformed(what: "entities")
            case .rows(let rows): return rows
            case .malformed(let malformed): throw malformed
            case .other(let value):
                guard case .object(let entityValues) = value else { throw Malformed(what: "entities") }
                var entities: [String: [[String: SnapshotValue]]] = [:]
                for (name, rows) in entityValues {
                    guard case .array(let rows) = rows else { throw Malformed(what: "rows of \(name)") }
                    entities[name] = try rows.map { row in
                        guard case .object(let values) = row else { throw Malformed(what: "a row of \(name)") }
                        return values
                    }
                }
                return entities
            }
        }
    }

    /// Reads the file's JSON, accepting and refusing exactly what `SnapshotJSON.parse(_:)` does,
    /// without a `SnapshotValue` of the whole file: each row goes straight into its entity's
    /// list. A file whose framing has `$` keys is read the general way, to be judged as before.
    /// - Throws: `SnapshotJSON/SyntaxError`.
    private static func read(_ data: Data, schema: Schema?) throws -> Parsed {
        try data.withUnsafeBytes { raw in
            try raw.withMemoryRebound(to: UInt8.self) { bytes in
                var parser = SnapshotJSON.Parser(bytes: bytes)
                var parsed = Parsed(header: [:])
                let plain = try parser.plainObject(depth: 0) { parser, key in
                    if key == "entities" {
                        (parsed.entities, parsed.columns) = try readEntities(&parser, schema: schema)
                    } else if key == "history" {
                        parsed.history = try readHistory(&parser)
                    } else {
                        parsed.header?[key] = try parser.value(depth: 1)
                    }
                }
                if !plain {
                    let value = try parser.value(depth: 0)
                    parsed = Parsed(header: nil)
                    if case .object(var header) = value {
                        parsed.entities = header.removeValue(forKey: "entities").map(Entities.other) ?? .absent
                        parsed.history = header.removeValue(forKey: "history").map(HistoryInput.value)
                        parsed.header = header
                    }
                }
                try parser.end()
                return parsed
            }
        }
    }

    /// The `entities` member (at depth 1), and the columns of the rows of `schema`'s entities.
    private static func readEntities(_ parser: inout SnapshotJSON.Parser, schema: Schema?) throws -> (Entities, [String: RowColumns]) {
        var entities: [String: [[String: SnapshotValue]]] = [:]
        var columns: [String: RowColumns] = [:]
        // By name: a later member of the same name replaces an earlier one, as in a dictionary.
        var malformed: [String: Malformed] = [:]
        let start = parser.position
        let plain = try parser.plainObject(depth: 1) { parser, name in
            var rows: [[String: SnapshotValue]] = []
            var reader = schema?.entity(named: name).map { RowReader(columns: RowColumns(entity: $0)) }
            malformed[name] = nil
            let isArray = try parser.array(depth: 2) { parser in
                let row: [String: SnapshotValue]?
                if reader != nil {
                    row = try reader?.readRow(&parser)
                } else if case .object(let values) = try parser.value(depth: 3) {
                    row = values
                } else {
                    row = nil
                }
                guard let row else {
                    if malformed[name] == nil { malformed[name] = Malformed(what: "a row of \(name)") }
                    return
                }
                rows.append(row)
            }
            if !isArray {
                _ = try parser.value(depth: 2)
                malformed[name] = Malformed(what: "rows of \(name)")
            }
            entities[name] = rows
            columns[name] = reader?.columns
        }
        if plain { return (malformed.values.first.map(Entities.malformed) ?? .rows(entities), columns) }
        parser.position = start
        return (.other(try parser.value(depth: 1)), [:])
    }

    /// Reads an entity's rows (elements of its array, at depth 3) into their dictionaries and
    /// their query-attribute columns at once: each value goes to its column as it is read,
    /// without a lookup of the attribute's name in the row. Rows of one entity have the same
    /// keys in the same order, so a key is compared with the one at its place in the last row
    /// and looked up only when it differs.
    private struct RowReader {
        var columns: RowColumns
        /// The keys of the last row read, in order, with their columns.
        private var keys: [(key: String, column: Int?)] = []
        /// The row's values for columns, handed over once the row is read whole.
        private var pending: [(column: Int, value: SnapshotValue)] = []
        private var lastCount = 0

        init(columns: RowColumns) { self.columns = columns }

        /// One row; `nil` when the element is not an object. A row with a `$` key (a wrapped
        /// `$object`, say) is read as a value, as the general path reads it.
        mutating func readRow(_ parser: inout SnapshotJSON.Parser) throws -> [String: SnapshotValue]? {
            let start = parser.position
            // Sized as the last row (`init(minimumCapacity:)` is specialized; `reserveCapacity(_:)`
            // is not, and cost a twelfth of an open).
            var values = [String: SnapshotValue](minimumCapacity: lastCount)
            pending.removeAll(keepingCapacity: true)
            var place = 0
            let plain = try parser.plainObject(depth: 3) { parser, key in
                let column: Int?
                if place < keys.count, keys[place].key == key {
                    column = keys[place].column
                } else {
                    column = columns.column(named: key)
                    if place < keys.count { keys[place] = (key, column) } else { keys.append((key, column)) }
                }
                place += 1
                let value = try parser.value(depth: 4)
                values[key] = value
                if let column { pending.append((column, value)) }
            }
            if plain {
                for (column, value) in pending { columns.set(column, to: value) }
                columns.endRow()
                lastCount = values.count
                return values
            }
            parser.position = start
            guard case .object(let values) = try parser.value(depth: 3) else { return nil }
            columns.appendRow(values)
            return values
        }
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
