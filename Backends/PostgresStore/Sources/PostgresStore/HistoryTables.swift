#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import PostgresNIO
import StoreProtocol

/// How history is kept: a row per transaction in `_history`, a row per change in `_changes`.
///
/// | `_history` | |
/// |---|---|
/// | `tx bigint PRIMARY KEY` | the transaction number (commit order) |
/// | `ts double precision` | its time, seconds since 1970 |
/// | `author`, `bundle`, `process` `text` | who saved it |
///
/// | `_changes` | |
/// |---|---|
/// | `tx bigint` | its transaction |
/// | `position bigint` | its place in the transaction (`PRIMARY KEY (tx, position)`) |
/// | `kind text` | `insert`, `update` or `delete` |
/// | `entity text` | the entity name |
/// | `pk text` | the primary key, as `_pk` spells it (``PrimaryKeyText``) |
/// | `updated text` | an update's updated attributes as a JSON array; `NULL` when not recorded |
/// | `tombstone text` | a delete's tombstone as a JSON object; `NULL` when none |
///
/// A save writes its changes in the statement that writes its transaction, as one array
/// parameter per column (``ColumnArrays``); a read joins the two tables; a deletion deletes from
/// both in one statement (``deleteStatement(namespace:where:)``). No `FOREIGN KEY`: its check,
/// a lookup per change row, was a fifth of a 1,000-record save, and the store is the only writer.
enum HistoryTables {
    /// `CREATE TABLE` of both, in `namespace` (quoted).
    static func createStatements(namespace: String) -> [String] {
        [
            "CREATE TABLE \(namespace)._history (tx bigint PRIMARY KEY, ts double precision NOT NULL, author text, bundle text NOT NULL, process text NOT NULL)",
            """
            CREATE TABLE \(namespace)._changes (tx bigint NOT NULL, position bigint NOT NULL, \
            kind text NOT NULL, entity text NOT NULL, pk text NOT NULL, updated text, tombstone text, PRIMARY KEY (tx, position))
            """,
        ]
    }

    /// One statement deleting the transactions `condition` selects (on `tx`, with the bound
    /// parameters the caller gives) and their changes.
    static func deleteStatement(namespace: String, where condition: String) -> String {
        "WITH h AS (DELETE FROM \(namespace)._history WHERE \(condition)) DELETE FROM \(namespace)._changes WHERE \(condition)"
    }

    /// The names of the tables, for checking that a new store's namespace does not hold them.
    static let names = ["_history", "_changes"]

    /// `INSERT INTO _changes` of one transaction's changes, the transaction number being
    /// parameter `$tx` and the change columns the arrays from parameter `$first` on (as
    /// ``changeArrays(_:)`` binds them).
    static func insertChanges(namespace: String, tx: Int, first: Int) -> String {
        insertChanges(namespace: namespace, number: "$\(tx)", first: first)
    }

    /// ``insertChanges(namespace:tx:first:)`` with the transaction number given as an SQL
    /// expression (a save computes it in the statement that writes the transaction).
    static func insertChanges(namespace: String, number: String, first: Int) -> String {
        let types = ["bigint", "text", "text", "text", "text", "text"]
        let arrays = types.enumerated().map { "$\(first + $0.offset)::\($0.element)[]" }.joined(separator: ", ")
        return "INSERT INTO \(namespace)._changes (tx, position, kind, entity, pk, updated, tombstone) "
            + "SELECT \(number), c.position, c.kind, c.entity, c.pk, c.updated, c.tombstone "
            + "FROM unnest(\(arrays)) AS c(position, kind, entity, pk, updated, tombstone)"
    }

    /// A transaction's changes as the arrays of ``insertChanges(namespace:tx:first:)``.
    /// - Throws: `DataStoreError` `.unsupportedValue` for a value the JSON codec cannot hold.
    static func changeArrays(_ changes: [HistoryRecord.Change]) throws -> ColumnArrays {
        var arrays = ColumnArrays(elementTypes: [.int8, .text, .text, .text, .text, .text])
        for (position, change) in changes.enumerated() {
            arrays.bind(Int64(position))
            arrays.bind(change.kind.rawValue)
            arrays.bind(change.entityName)
            arrays.bind(try PrimaryKeyText.text(change.primaryKey))
            if let updated = change.updatedAttributes {
                arrays.bind(try EntityTable.json(.array(updated.map(SnapshotValue.string))))
            } else {
                arrays.bindNull()
            }
            if let tombstone = change.tombstone { arrays.bind(try EntityTable.json(.object(tombstone))) } else { arrays.bindNull() }
        }
        return arrays
    }

    /// The columns a read of changes selects, in ``change(from:at:table:)``'s order.
    static let changeColumns = "c.kind, c.entity, c.pk, c.updated, c.tombstone"

    /// A change back, from the cells at `start…` of a row that selected ``changeColumns``; `nil`
    /// when they are `NULL` (a transaction without changes, read through an outer join).
    /// - Throws: `DataStoreError` `.corruptStore` when they do not read as a change.
    static func change(from row: [PostgresCell], at start: Int, table: String) throws -> HistoryRecord.Change? {
        guard let kindText = try row[start].decode(String?.self) else { return nil }
        guard let kind = HistoryRecord.Change.Kind(rawValue: kindText) else {
            throw DataStoreError(.corruptStore, "A change in \(table) has the kind '\(kindText)'; the table was changed by something else.")
        }
        let entity = try row[start + 1].decode(String.self)
        let pk = try row[start + 2].decode(String.self)
        var updated: [String]?
        if let text = try row[start + 3].decode(String?.self) {
            guard case .array(let names) = try EntityTable.parse(text, table: table) else {
                throw DataStoreError(.corruptStore, "A change in \(table) has updated attributes that are not a JSON array.")
            }
            updated = try names.map {
                guard case .string(let name) = $0 else { throw DataStoreError(.corruptStore, "A change in \(table) names an attribute that is not a string.") }
                return name
            }
        }
        var tombstone: [String: SnapshotValue]?
        if let text = try row[start + 4].decode(String?.self) {
            guard case .object(let values) = try EntityTable.parse(text, table: table) else {
                throw DataStoreError(.corruptStore, "A change in \(table) has a tombstone that is not a JSON object.")
            }
            tombstone = values
        }
        return HistoryRecord.Change(kind: kind, entityName: entity, primaryKey: try PrimaryKeyText.key(pk.utf8, table: table),
                                    updatedAttributes: updated, tombstone: tombstone)
    }
}
#endif
