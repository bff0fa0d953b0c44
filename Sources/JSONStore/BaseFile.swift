import Foundation
import StoreProtocol

/// The base file: the whole store as of journal entry `journalSequence`, as one JSON document
/// with one row or transaction per line (readable, diffable):
///
/// ```json
/// {"format":"swift-data-stores/json-store","version":1,"storeIdentifier":"…","journalSequence":12,
/// "lastTransaction":40,"historyExpiredThrough":0,
/// "entities":{
/// "Trip":[
/// {"id":{"$uuid":"…"},"name":"Iceland",…}
/// ]},
/// "history":[
/// {"transactionNumber":40,"author":"widget",…}
/// ]}
/// ```
struct BaseFile: Codable {
    static let formatName = "swift-data-stores/json-store"
    static let currentVersion = 1

    var format: String
    var version: Int
    var storeIdentifier: String
    /// The last journal entry folded into this file; replay skips entries up to it.
    var journalSequence: Int64
    var lastTransaction: Int64
    var historyExpiredThrough: Int64
    /// Entity name -> rows (attribute values; the primary key is the `id` attribute).
    var entities: [String: [[String: SnapshotValue]]]
    var history: [HistoryRecord]

    /// Only the header, to check format and version before decoding everything.
    struct Header: Decodable {
        var format: String?
        var version: Int?
    }

    /// Decodes a base file, checking that it is one, of a version this library reads.
    /// - Throws: ``DataStoreError/Code/corruptStore`` naming the file and what is wrong.
    static func decode(_ data: Data, path: String) throws -> BaseFile {
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: data) else {
            throw DataStoreError(.corruptStore,
                "\(path) is not a JSON store: it is not a JSON object (damaged, truncated, or another kind of file). "
                + "Restore it from a backup or point the configuration at another file; it was left untouched.")
        }
        guard header.format == formatName else {
            throw DataStoreError(.corruptStore,
                "\(path) is JSON but not a JSON store (its \"format\" is \(header.format.map { "\"\($0)\"" } ?? "missing")). "
                + "Point the configuration at another file; this one was left untouched.")
        }
        guard header.version == currentVersion else {
            throw DataStoreError(.corruptStore,
                "\(path) is a JSON store of format version \(header.version ?? 0); this library reads version "
                + "\(currentVersion). Open it with the library version that wrote it; it was left untouched.")
        }
        do {
            return try decoder.decode(BaseFile.self, from: data)
        } catch {
            throw DataStoreError(.corruptStore,
                "\(path) is a damaged JSON store: \(error). Restore it from a backup; it was left untouched.")
        }
    }

    /// Encodes the file, one row or record per line.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ value: some Encodable) throws -> Data { try encoder.encode(value) }
        var out = Data()
        func add(_ string: String) { out.append(contentsOf: string.utf8) }
        add("{\"format\":"); out.append(try json(format))
        add(",\"version\":\(version),\"storeIdentifier\":"); out.append(try json(storeIdentifier))
        add(",\"journalSequence\":\(journalSequence),\"lastTransaction\":\(lastTransaction)")
        add(",\"historyExpiredThrough\":\(historyExpiredThrough),\n\"entities\":{")
        for (entityIndex, name) in entities.keys.sorted().enumerated() {
            add(entityIndex == 0 ? "\n" : ",\n")
            out.append(try json(name))
            add(":[")
            for (rowIndex, row) in (entities[name] ?? []).enumerated() {
                add(rowIndex == 0 ? "\n" : ",\n")
                out.append(try json(row))
            }
            add("\n]")
        }
        add("},\n\"history\":[")
        for (index, record) in history.enumerated() {
            add(index == 0 ? "\n" : ",\n")
            out.append(try json(record))
        }
        add("\n]}\n")
        return out
    }
}
