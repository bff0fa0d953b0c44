import Foundation
@testable import JSONStore
import StoreBuildingBlocks
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 30: a base file is read straight into rows (`BaseFile.decode`), without a `SnapshotValue`
/// of the whole file. It must accept and refuse exactly what the general path did: parse the file
/// with `SnapshotJSON.parse`, then take each entity's rows from the value.
@Suite struct BaseFileReadingTests {
    /// A version 1 base file (no checksum, so that damage reaches the rows) of random rows of every kind.
    static func file(_ values: inout RandomSnapshotValues<SystemRandomNumberGenerator>, entities: Int) throws -> [UInt8] {
        var rows: [String: [[String: SnapshotValue]]] = [:]
        for index in 0..<entities {
            rows["E\(index)" + values.string()] = (0..<Int.random(in: 0...4)).map { row in
                var object = values.object()
                object["id"] = .int(Int64(row))
                return object
            }
        }
        let file = BaseFile(format: BaseFile.formatName, version: 1, storeIdentifier: "s", journalSequence: 0, lastTransaction: 0,
                            expiredThrough: 0, schema: .unrecorded, entities: rows, history: [])
        var text = String(decoding: try file.encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: #"{"format":"swift-data-stores/json-store","version":1"#,
                                         with: #"{"version":1,"format":"swift-data-stores/json-store""#)
        return Array(text.utf8)
    }

    /// The general path's rows: `nil` when it refuses the value.
    static func generalRows(_ value: SnapshotValue) -> [String: [[String: SnapshotValue]]]? {
        guard case .object(let header) = value, case .object(let entities)? = header["entities"] else { return nil }
        var rows: [String: [[String: SnapshotValue]]] = [:]
        for (name, list) in entities {
            guard case .array(let list) = list else { return nil }
            var objects: [[String: SnapshotValue]] = []
            for row in list {
                guard case .object(let object) = row else { return nil }
                objects.append(object)
            }
            rows[name] = objects
        }
        return rows
    }

    /// Whether `BaseFile.decode` reads `bytes` as the general path does: the same syntax error
    /// (offset and reason), or the same rows, or a refusal where the general path's rows are not
    /// of the shape.
    static func agree(_ bytes: [UInt8]) -> Bool {
        let outcome = Result { try BaseFile.decode(Data(bytes), path: "f") }
        let parsed: SnapshotValue
        do { parsed = try SnapshotJSON.parse(bytes) } catch {
            guard case .failure(let refusal) = outcome else { return false }
            return "\(refusal)".contains("f is not a JSON store: \(error) (")
        }
        switch outcome {
        case .success(let file):
            guard let rows = generalRows(parsed), rows.keys.sorted() == file.entities.keys.sorted() else { return false }
            return rows.allSatisfy { name, list in
                let read = file.entities[name] ?? []
                return read.count == list.count && zip(read, list).allSatisfy { sameBits(.object($0), .object($1)) }
            }
        case .failure(let refusal):
            // Not for syntax, and for the rows only where the general path refuses them too
            // (other refusals, of the header fields, are the same code for both).
            let text = "\(refusal)"
            let refusesRows = text.contains("entities is not of the expected shape") || text.contains("row of ") || text.contains("rows of ")
            return !text.contains("is not a JSON store:") && (!refusesRows || generalRows(parsed) == nil)
        }
    }

    @Test func rowsReadAsTheGeneralPathReadsThem() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        for _ in 0..<50 {
            let bytes = try Self.file(&values, entities: Int.random(in: 0...3))
            guard case .success = Result(catching: { try BaseFile.decode(Data(bytes), path: "f") }) else {
                Issue.record("a valid file is refused: \(String(decoding: bytes, as: UTF8.self))"); continue
            }
            #expect(Self.agree(bytes))
        }
    }

    /// Damaged files, one byte away from valid ones: the same syntax errors, byte offsets
    /// included, and the same rows where they parse. A reader one character off would differ.
    @Test func damagedFilesReadAsTheGeneralPathReadsThem() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        var read = 0, checked = 0
        for _ in 0..<30 {
            let valid = try Self.file(&values, entities: 2)
            for length in stride(from: 0, to: valid.count, by: max(1, valid.count / 40)) {
                #expect(Self.agree(Array(valid[..<length])), "cut at \(length)")
            }
            for _ in 0..<100 {
                let damaged = JSONDamage.oneByteChange(of: valid)
                if (try? BaseFile.decode(Data(damaged), path: "f")) != nil { read += 1 }
                #expect(Self.agree(damaged), "\(String(decoding: damaged, as: UTF8.self))")
                checked += 1
            }
        }
        #expect(read > 0 && read < checked, "control: some damage still reads, most does not (\(read) of \(checked))")
    }

    /// Framing this library never writes: `$` keys, rows of the wrong kind, duplicate names.
    @Test(arguments: [
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"$object":{"$E":[{"id":1}]}},"history":[]}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"E":[{"$object":{"id":1}}]},"history":[]}"#,
        #"{"$object":{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"E":[{"id":1}]},"history":[]}}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"E":[5]},"history":[]}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"E":{}},"history":[]}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"E":5,"E":[{"id":1}]},"history":[]}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"E":[{"id":1}],"E":[{"id":2}]},"history":[]}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":[],"history":[]}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"history":[]}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{},"history":[]} {}"#,
        #"{"version":1,"format":"swift-data-stores/json-store","storeIdentifier":"s","journalSequence":0,"lastTransaction":0,"historyExpiredThrough":0,"entities":{"E":[{"id":"\x"}]},"history":[]}"#,
        #"[1]"#, #"{"format":"other"}"#, "",
    ])
    func oddFilesReadAsTheGeneralPathReadsThem(_ text: String) {
        #expect(Self.agree(Array(text.utf8)))
    }
}
