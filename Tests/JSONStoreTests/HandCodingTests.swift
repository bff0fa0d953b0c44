import Foundation
@testable import JSONStore
import StoreBuildingBlocks
import StoreProtocol
import Testing

/// Issue 12: journal entries and history records are converted to snapshot values by hand on
/// the save and open paths; the result must be exactly what their `Codable` conformances give,
/// so files written either way read the same.
@Suite struct HandCodingTests {
    static func record(_ number: Int64, _ generator: inout some RandomNumberGenerator) -> HistoryRecord {
        let kinds: [HistoryRecord.Change.Kind] = [.insert, .update, .delete]
        let changes = (0..<Int.random(in: 0...4, using: &generator)).map { index -> HistoryRecord.Change in
            let kind = kinds.randomElement(using: &generator)!
            return HistoryRecord.Change(
                kind: kind, entityName: "Entity\(index)",
                primaryKey: Bool.random(using: &generator) ? .uuid(UUID()) : .string("key \(index) ☃"),
                updatedAttributes: kind == .update ? ["name", "date"] : nil,
                tombstone: kind == .delete
                    ? ["name": .string("gone"), "date": .date(Date(timeIntervalSince1970: Double(index) + 0.1)), "n": .double(-0.0)]
                    : nil)
        }
        return HistoryRecord(
            transactionNumber: number, author: Bool.random(using: &generator) ? "author \(number)" : nil,
            timestamp: Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &generator)),
            changes: changes)
    }

    @Test func historyRecordsConvertAsTheirCodableFormAndBack() throws {
        var generator = SystemRandomNumberGenerator()
        for number in 1...200 {
            let record = Self.record(Int64(number), &generator)
            let codable = try SnapshotEncoder().encode(record)
            #expect(record.snapshotValue == codable)
            #expect(try HistoryRecord(snapshotValue: codable) == record)
            #expect(try SnapshotDecoder().decode(HistoryRecord.self, from: record.snapshotValue) == record)
        }
    }

    @Test func journalEntriesConvertAsTheirCodableFormAndBack() throws {
        var generator = SystemRandomNumberGenerator()
        for number in 1...200 {
            let entry = JournalEntry(
                sequence: Int64(number),
                transaction: number % 5 == 0 ? nil : Self.record(Int64(number), &generator),
                upserts: number % 3 == 0 ? nil : [JournalEntry.Row(entity: "Trip", values: ["id": .uuid(UUID()), "n": .int(Int64(number))])],
                deletes: number % 2 == 0 ? nil : [PersistentIdentifier(entityName: "Trip", primaryKey: .int(7))],
                expiredThrough: number % 4 == 0 ? Int64(number - 1) : nil,
                deletedTransactions: number % 7 == 0 ? [1, 2] : nil,
                erase: number % 11 == 0 ? true : nil)
            let codable = try SnapshotEncoder().encode(entry)
            #expect(entry.snapshotValue == codable)
            let back = try JournalEntry(snapshotValue: codable)
            #expect(try SnapshotEncoder().encode(back) == codable)
            // And through the file format: the line's JSON reads back as the same entry.
            #expect(try JournalEntry(snapshotValue: SnapshotJSON.parse(SnapshotJSON.encode(entry.snapshotValue))).snapshotValue == codable)
        }
    }

    @Test func aRecordMissingAFieldIsAnErrorNamingIt() throws {
        var generator = SystemRandomNumberGenerator()
        guard case .object(var fields) = Self.record(1, &generator).snapshotValue else { return }
        fields["timestamp"] = nil
        let error = try #require(throws: DecodingError.self) { try HistoryRecord(snapshotValue: .object(fields)) }
        #expect("\(error)".contains("timestamp"))
    }
}
