import Foundation
import StoreProtocol
import StoreBuildingBlocks

/// The base file's `history` member, read straight into records: each record's and each
/// change's fields are read as the parser reaches them, without an object per record and per
/// change to be looked up by key (a transaction that inserted 100,000 rows has 100,000 changes,
/// which read as values took a quarter of an open).
///
/// It accepts and refuses what reading the member as one value and converting it
/// (`HistoryRecord/init(snapshotValue:)`) does: a record or change whose fields are not of the
/// kinds a store writes, or whose framing has a `$` key, is converted that way, from its value.
extension BaseFile {
    /// The `history` member as read.
    enum HistoryInput {
        /// Read as a value (not an array, or a header read the general way).
        case value(SnapshotValue)
        /// An array, each element read as `RecordFields`.
        case records([RecordFields])

        /// The records.
        /// - Throws: `Malformed` when the member is not an array; what
        ///   `HistoryRecord/init(snapshotValue:)` throws for a record it refuses.
        func records() throws -> [HistoryRecord] {
            switch self {
            case .value(let value):
                guard case .array(let records) = value else { throw Malformed(what: "history") }
                return try records.map(HistoryRecord.init(snapshotValue:))
            case .records(let records):
                return try records.map { try $0.record() }
            }
        }
    }

    /// One element of `history` as read: its fields, or its value when it is not a plain object.
    enum RecordFields {
        case fields(transactionNumber: SnapshotValue?, author: SnapshotValue?, timestamp: SnapshotValue?,
                    bundleIdentifier: SnapshotValue?, processIdentifier: SnapshotValue?, changes: ChangesInput?)
        case value(SnapshotValue)

        /// The record: read from its fields when they are of the kinds a store writes, otherwise
        /// converted from its value (which judges it).
        func record() throws -> HistoryRecord {
            guard case .fields(.int(let number)?, let author, .date(let timestamp)?, .string(let bundle)?, .string(let process)?,
                               .changes(let changeFields)?) = self else { return try HistoryRecord(snapshotValue: value) }
            let authorName: String?
            switch author {
            case nil, .null?: authorName = nil
            case .string(let name)?: authorName = name
            default: return try HistoryRecord(snapshotValue: value)
            }
            var changes: [HistoryRecord.Change] = []
            changes.reserveCapacity(changeFields.count)
            for fields in changeFields {
                guard let change = fields.plainChange else { return try HistoryRecord(snapshotValue: value) }
                changes.append(change)
            }
            return HistoryRecord(transactionNumber: number, author: authorName, timestamp: timestamp,
                                 bundleIdentifier: bundle, processIdentifier: process, changes: changes)
        }

        /// The record as one value, for the general conversion to judge.
        var value: SnapshotValue {
            switch self {
            case .value(let value): return value
            case .fields(let number, let author, let timestamp, let bundle, let process, let changes):
                var object: [String: SnapshotValue] = [:]
                object["transactionNumber"] = number
                object["author"] = author
                object["timestamp"] = timestamp
                object["bundleIdentifier"] = bundle
                object["processIdentifier"] = process
                object["changes"] = changes?.value
                return .object(object)
            }
        }
    }

    /// A record's `changes` as read.
    enum ChangesInput {
        case changes([ChangeFields])
        case value(SnapshotValue)

        var value: SnapshotValue {
            switch self {
            case .changes(let changes): return .array(changes.map(\.value))
            case .value(let value): return value
            }
        }
    }

    /// One element of `changes` as read.
    enum ChangeFields {
        case fields(kind: SnapshotValue?, entityName: SnapshotValue?, primaryKey: SnapshotValue?,
                    updatedAttributes: SnapshotValue?, tombstone: SnapshotValue?)
        case value(SnapshotValue)

        /// The change, when its fields are of the kinds a store writes.
        var plainChange: HistoryRecord.Change? {
            guard case .fields(.string(let kindName)?, .string(let entityName)?, let primaryKey?, let updated, let tombstone) = self,
                  let kind = HistoryRecord.Change.Kind(rawValue: kindName) else { return nil }
            var attributes: [String]?
            switch updated {
            case nil, .null?: attributes = nil
            case .array(let names)?:
                var strings: [String] = []
                for name in names {
                    guard case .string(let string) = name else { return nil }
                    strings.append(string)
                }
                attributes = strings
            default: return nil
            }
            var preserved: [String: SnapshotValue]?
            switch tombstone {
            case nil, .null?: preserved = nil
            case .object(let object)?: preserved = object
            default: return nil
            }
            return HistoryRecord.Change(kind: kind, entityName: entityName, primaryKey: primaryKey,
                                        updatedAttributes: attributes, tombstone: preserved)
        }

        var value: SnapshotValue {
            switch self {
            case .value(let value): return value
            case .fields(let kind, let entityName, let primaryKey, let updated, let tombstone):
                var object: [String: SnapshotValue] = [:]
                object["kind"] = kind
                object["entityName"] = entityName
                object["primaryKey"] = primaryKey
                object["updatedAttributes"] = updated
                object["tombstone"] = tombstone
                return .object(object)
            }
        }
    }

    /// The `history` member (at depth 1).
    static func readHistory(_ parser: inout SnapshotJSON.Parser) throws -> HistoryInput {
        var records: [RecordFields] = []
        let isArray = try parser.array(depth: 1) { parser in records.append(try readRecord(&parser)) }
        return isArray ? .records(records) : .value(try parser.value(depth: 1))
    }

    /// One element of `history` (at depth 2).
    private static func readRecord(_ parser: inout SnapshotJSON.Parser) throws -> RecordFields {
        let start = parser.position
        var number, author, timestamp, bundle, process: SnapshotValue?
        var changes: ChangesInput?
        let plain = try parser.plainObject(depth: 2) { parser, key in
            switch key {
            case "changes":
                var read: [ChangeFields] = []
                let isArray = try parser.array(depth: 3) { parser in read.append(try readChange(&parser)) }
                changes = isArray ? .changes(read) : .value(try parser.value(depth: 3))
            case "transactionNumber": number = try parser.value(depth: 3)
            case "author": author = try parser.value(depth: 3)
            case "timestamp": timestamp = try parser.value(depth: 3)
            case "bundleIdentifier": bundle = try parser.value(depth: 3)
            case "processIdentifier": process = try parser.value(depth: 3)
            default: _ = try parser.value(depth: 3)
            }
        }
        if plain {
            return .fields(transactionNumber: number, author: author, timestamp: timestamp, bundleIdentifier: bundle,
                           processIdentifier: process, changes: changes)
        }
        parser.position = start
        return .value(try parser.value(depth: 2))
    }

    /// One element of a record's `changes` (at depth 4).
    private static func readChange(_ parser: inout SnapshotJSON.Parser) throws -> ChangeFields {
        let start = parser.position
        var kind, entityName, primaryKey, updated, tombstone: SnapshotValue?
        let plain = try parser.plainObject(depth: 4) { parser, key in
            switch key {
            case "kind": kind = try parser.value(depth: 5)
            case "entityName": entityName = try parser.value(depth: 5)
            case "primaryKey": primaryKey = try parser.value(depth: 5)
            case "updatedAttributes": updated = try parser.value(depth: 5)
            case "tombstone": tombstone = try parser.value(depth: 5)
            default: _ = try parser.value(depth: 5)
            }
        }
        if plain {
            return .fields(kind: kind, entityName: entityName, primaryKey: primaryKey, updatedAttributes: updated, tombstone: tombstone)
        }
        parser.position = start
        return .value(try parser.value(depth: 4))
    }
}
