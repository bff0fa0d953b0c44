import Foundation
@testable import JSONStore
@testable import StoreBuildingBlocks
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 30, JSON open: a base file's rows are read straight into their query-attribute columns
/// (`BaseFile.decode(_:path:schema:)`), and its history straight into records. Each must give
/// what the general path gives: the columns what filling them from each row's dictionary gives,
/// the history what converting the member's value (`HistoryRecord.init(snapshotValue:)`) gives.
@Suite struct BaseFileStraightReadingTests {
    static let schema = Schema([Entry.self])

    /// A row of `Entry` (`id`, `title`, `count`) whose keys and values vary as a damaged or
    /// foreign file's would: keys missing, extra or of other kinds, `null`s, a wrapped `$object`.
    static func row(_ values: inout RandomSnapshotValues<SystemRandomNumberGenerator>, id: Int) -> [String: SnapshotValue] {
        var row: [String: SnapshotValue] = ["id": .int(Int64(id))]
        switch Int.random(in: 0..<4) {
        case 0: row["title"] = .string(values.string())
        case 1: row["title"] = values.value()
        case 2: row["title"] = .null
        default: break
        }
        switch Int.random(in: 0..<4) {
        case 0: row["count"] = .int(values.integer())
        case 1: row["count"] = values.value()
        case 2: row["count"] = .double(values.double())
        default: break
        }
        if Bool.random() { row[Bool.random() ? "other" : "$tag"] = values.value() }
        return row
    }

    static func history(_ values: inout RandomSnapshotValues<SystemRandomNumberGenerator>) -> [HistoryRecord] {
        (1...Int.random(in: 1...4)).map { number in
            HistoryRecord(
                transactionNumber: Int64(number), author: Bool.random() ? values.string() : nil,
                timestamp: Date(timeIntervalSinceReferenceDate: values.double().isFinite ? values.double() : 0),
                bundleIdentifier: values.string(), processIdentifier: values.string(),
                changes: (0..<Int.random(in: 0...3)).map { _ in
                    HistoryRecord.Change(
                        kind: [.insert, .update, .delete].randomElement()!, entityName: values.string(), primaryKey: values.value(depth: 1),
                        updatedAttributes: Bool.random() ? (0..<Int.random(in: 0...2)).map { _ in values.string() } : nil,
                        tombstone: Bool.random() ? values.object(depth: 1) : nil)
                })
        }
    }

    static func file(_ values: inout RandomSnapshotValues<SystemRandomNumberGenerator>) throws -> [UInt8] {
        let rows = (0..<Int.random(in: 1...6)).map { row(&values, id: $0) }
        let file = BaseFile(format: BaseFile.formatName, version: 1, storeIdentifier: "s", journalSequence: 0,
                            lastTransaction: 0, expiredThrough: 0, schema: .unrecorded,
                            entities: ["Entry": rows, "Other": [["id": .int(1)]]], history: history(&values))
        return Array(try file.encoded())
    }

    /// Whether every column holds, for every row, what `QueryAttribute.value(in:)` gives for it.
    static func columnsAgree(_ file: BaseFile) -> Bool {
        guard let columns = file.columns["Entry"], let rows = file.entities["Entry"], columns.rowCount == rows.count,
              !columns.columns.isEmpty else { return false }
        return columns.columns.allSatisfy { column in
            rows.indices.allSatisfy { row in
                let expected = column.attribute.value(in: rows[row])
                let read = column.value(at: row)
                return expected.map { expected in read.map { sameBits($0, expected) } ?? false } ?? (read == nil)
            }
        }
    }

    /// Whether two histories are the same, bit for bit (a NaN in a key or tombstone is not `==` itself).
    static func same(_ a: [HistoryRecord]?, _ b: [HistoryRecord]?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return sameBits(.array(a.map(\.snapshotValue)), .array(b.map(\.snapshotValue)))
    }

    /// The general path's history: `nil` when it refuses it.
    static func generalHistory(_ bytes: [UInt8]) -> [HistoryRecord]? {
        guard case .object(let header)? = try? SnapshotJSON.parse(bytes), case .array(let records)? = header["history"] else { return nil }
        return try? records.map(HistoryRecord.init(snapshotValue:))
    }

    @Test func columnsHoldWhatEachRowHolds() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        for _ in 0..<100 {
            let bytes = try Self.file(&values)
            let file = try BaseFile.decode(Data(bytes), path: "f", schema: Self.schema)
            #expect(Self.columnsAgree(file), "\(String(decoding: bytes, as: UTF8.self))")
            #expect(file.columns["Other"] == nil, "an entity the schema lacks has no columns")
        }
    }

    /// A store whose rows have their keys in other orders and sets, reopened: a predicate over a
    /// column finds what it finds in the rows.
    @Test func aStoreWithRowsOfOtherKeysIsQueriedByWhatTheyHold() throws {
        let url = FileManager.default.temporaryDirectory.appending(path: "straight-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let ids = (0..<4).map { _ in UUID() }
        let rows: [[String: SnapshotValue]] = [
            ["id": .uuid(ids[0]), "title": .string("a"), "count": .int(1)],
            ["id": .uuid(ids[1]), "count": .int(2), "title": .string("b"), "zextra": .int(9)],
            ["id": .uuid(ids[2]), "aextra": .string("x"), "title": .string("c"), "count": .int(3)],
            ["id": .uuid(ids[3]), "title": .string("d"), "count": .int(4)],
        ]
        let file = BaseFile(format: BaseFile.formatName, version: BaseFile.currentVersion, storeIdentifier: UUID().uuidString,
                            journalSequence: 0, lastTransaction: 0, expiredThrough: 0, schema: StoredSchema(Self.schema),
                            entities: ["Entry": rows], history: [])
        try file.encoded().write(to: url)
        let container = try openContainer(url)
        for count in 1...4 {
            let found = try ModelContext(container).fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.count == count }))
            #expect(found.map(\.title) == [["a", "b", "c", "d"][count - 1]])
        }
        let titled = try ModelContext(container).fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.title >= "c" }))
        #expect(Set(titled.map(\.count)) == [3, 4])
    }

    @Test func historyReadsAsTheGeneralPathReadsIt() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        for _ in 0..<50 {
            let bytes = try Self.file(&values)
            let file = try BaseFile.decode(Data(bytes), path: "f", schema: Self.schema)
            #expect(Self.same(file.history, Self.generalHistory(bytes)))
        }
    }

    /// Damaged files, one byte away from valid ones: a history read straight where the general
    /// path reads it, the same records, and refused where the general path refuses it.
    @Test func damagedHistoryReadsAsTheGeneralPathReadsIt() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        var read = 0, checked = 0
        for _ in 0..<30 {
            let valid = try Self.file(&values)
            for _ in 0..<100 {
                let damaged = JSONDamage.oneByteChange(of: valid)
                let general = Self.generalHistory(damaged)
                switch Result(catching: { try BaseFile.decode(Data(damaged), path: "f", schema: Self.schema) }) {
                case .success(let file):
                    read += 1
                    #expect(Self.same(file.history, general), "\(String(decoding: damaged, as: UTF8.self))")
                    #expect(file.columns["Entry"] == nil || Self.columnsAgree(file))
                case .failure:
                    break
                }
                if general == nil, (try? SnapshotJSON.parse(damaged)) != nil, !String(decoding: damaged, as: UTF8.self).contains("\"$") {
                    #expect(throws: (any Error).self) { try BaseFile.decode(Data(damaged), path: "f", schema: Self.schema) }
                }
                checked += 1
            }
        }
        #expect(read > 0 && read < checked, "control: some damage still reads, most does not (\(read) of \(checked))")
    }
}
