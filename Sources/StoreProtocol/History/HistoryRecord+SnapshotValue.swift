import Foundation

/// A record as one ``SnapshotValue``, converted by hand: the value its `Codable` conformance
/// gives through ``SnapshotEncoder``, without the coder's containers and coding paths, for
/// stores that write history on every save and read all of it on open.
extension HistoryRecord {
    /// The record as ``SnapshotEncoder`` encodes it (absent optionals are left out).
    /// - Complexity: O(size of the record).
    public var snapshotValue: SnapshotValue {
        var object: [String: SnapshotValue] = [
            "transactionNumber": .int(transactionNumber),
            "timestamp": .date(timestamp),
            "bundleIdentifier": .string(bundleIdentifier),
            "processIdentifier": .string(processIdentifier),
            "changes": .array(changes.map(\.snapshotValue)),
        ]
        if let author { object["author"] = .string(author) }
        return .object(object)
    }

    /// Reads a record from ``snapshotValue``'s form, which is also its `Codable` form.
    /// - Throws: `DecodingError` naming the field that is missing or of another kind.
    public init(snapshotValue value: SnapshotValue) throws {
        let fields = try SnapshotFields(value, of: "a history record")
        self.init(
            transactionNumber: try fields.decode("transactionNumber", as: Int64.self),
            author: try fields.decodeIfPresent("author", as: String.self),
            timestamp: try fields.decode("timestamp", as: Date.self),
            bundleIdentifier: try fields.decode("bundleIdentifier", as: String.self),
            processIdentifier: try fields.decode("processIdentifier", as: String.self),
            changes: try fields.array("changes").map(Change.init(snapshotValue:)))
    }
}

extension HistoryRecord.Change {
    /// The change as ``SnapshotEncoder`` encodes it (absent optionals are left out).
    public var snapshotValue: SnapshotValue {
        var object: [String: SnapshotValue] = [
            "kind": .string(kind.rawValue),
            "entityName": .string(entityName),
            "primaryKey": primaryKey,
        ]
        if let updatedAttributes { object["updatedAttributes"] = .array(updatedAttributes.map(SnapshotValue.string)) }
        if let tombstone { object["tombstone"] = .object(tombstone) }
        return .object(object)
    }

    /// Reads a change from ``snapshotValue``'s form, which is also its `Codable` form.
    /// - Throws: `DecodingError` naming the field that is missing or of another kind.
    public init(snapshotValue value: SnapshotValue) throws {
        let fields = try SnapshotFields(value, of: "a history change")
        guard let kind = Kind(rawValue: try fields.decode("kind", as: String.self)) else {
            throw fields.error("kind", "is not insert, update or delete")
        }
        self.init(
            kind: kind, entityName: try fields.decode("entityName", as: String.self),
            primaryKey: try fields.value("primaryKey"),
            updatedAttributes: try fields.decodeIfPresent("updatedAttributes", as: [String].self),
            tombstone: try fields.objectIfPresent("tombstone"))
    }
}

/// The fields of a keyed ``SnapshotValue`` read one by one, leaves through ``SnapshotDecoder``
/// so that they are read by the same rules as everywhere else.
package struct SnapshotFields {
    let object: [String: SnapshotValue]
    let what: String

    package init(_ value: SnapshotValue, of what: String) throws {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch([String: SnapshotValue].self, .init(
                codingPath: [], debugDescription: "\(what) is \(value), not an object"))
        }
        self.object = object
        self.what = what
    }

    package func error(_ key: String, _ problem: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "\(what)'s \(key) \(problem)"))
    }

    package func value(_ key: String) throws -> SnapshotValue {
        guard let value = object[key] else { throw error(key, "is missing") }
        return value
    }

    package func decode<T: Decodable>(_ key: String, as type: T.Type) throws -> T {
        try SnapshotDecoder().decode(T.self, from: try value(key))
    }

    package func decodeIfPresent<T: Decodable>(_ key: String, as type: T.Type) throws -> T? {
        guard let value = object[key], value != .null else { return nil }
        return try SnapshotDecoder().decode(T.self, from: value)
    }

    package func array(_ key: String) throws -> [SnapshotValue] {
        guard case .array(let values) = try value(key) else { throw error(key, "is not an array") }
        return values
    }

    package func arrayIfPresent(_ key: String) throws -> [SnapshotValue]? {
        guard let value = object[key], value != .null else { return nil }
        guard case .array(let values) = value else { throw error(key, "is not an array") }
        return values
    }

    package func objectIfPresent(_ key: String) throws -> [String: SnapshotValue]? {
        guard let value = object[key], value != .null else { return nil }
        guard case .object(let fields) = value else { throw error(key, "is not an object") }
        return fields
    }
}
