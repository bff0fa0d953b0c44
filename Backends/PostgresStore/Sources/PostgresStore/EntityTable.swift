import Foundation
import PostgresNIO
import StoreFiles
import StoreProtocol

/// How one entity's rows are kept: one table per entity in the store's namespace.
///
/// | column | what |
/// |---|---|
/// | `_pk text PRIMARY KEY` | the primary key (`id`) in the snapshot JSON codec |
/// | `_seq bigint` | insertion order: the order of unsorted fetches and of ties |
/// | `_doc text` | every stored value (attributes and relationships) as one JSON object, read back exactly |
/// | `_exact boolean` | whether every typed column below holds the row's value exactly |
/// | `"q:NAME" bigint / boolean` | each integer or `Bool` attribute, for `WHERE` and `ORDER BY` |
/// | `uN text` | the values of unique constraint *N*, `UNIQUE DEFERRABLE` |
///
/// The document is what a fetch returns; the typed columns only select and order rows. A row
/// whose value does not read as its attribute's type (a `UInt64` above `Int64.max`, a missing
/// value) has `_exact = false`, and a query on typed columns then runs in memory instead.
/// Relationships are kept in the document as the values the context sends (the destination's
/// primary key, or an array of them); see the package README for why they are not foreign keys.
struct EntityTable: Sendable {
    /// One typed column.
    struct TypedColumn: Sendable {
        let attribute: QueryAttribute
        let isBool: Bool
        var sqlName: String { SQLName.quote("q:" + attribute.name) }
        var sqlType: String { isBool ? "boolean" : "bigint" }
    }

    let entityName: String
    let entity: Schema.Entity?
    /// `"namespace"."Entity"`.
    let qualifiedName: String
    let typedColumns: [TypedColumn]
    let columnsByAttribute: [String: TypedColumn]
    let uniqueConstraintCount: Int

    init(entity: Schema.Entity, namespace: String) {
        self.entityName = entity.name
        self.entity = entity
        qualifiedName = SQLName.quote(namespace) + "." + SQLName.quote(entity.name)
        typedColumns = entity.queryAttributes.values
            .filter { ($0.type.isInteger || $0.type == .bool) && $0.name != "id" }
            .sorted { $0.name < $1.name }
            .map { TypedColumn(attribute: $0, isBool: $0.type == .bool) }
        columnsByAttribute = Dictionary(uniqueKeysWithValues: typedColumns.map { ($0.attribute.name, $0) })
        uniqueConstraintCount = entity.uniqueConstraints.count
    }

    /// A table for rows of an entity the store's schema does not hold (kept across a migration).
    init(foreignEntity name: String, namespace: String) {
        entityName = name
        entity = nil
        qualifiedName = SQLName.quote(namespace) + "." + SQLName.quote(name)
        typedColumns = []
        columnsByAttribute = [:]
        uniqueConstraintCount = 0
    }

    /// The column names the table has, for checking a table found in the database.
    var columnNames: Set<String> {
        Set(["_pk", "_seq", "_doc", "_exact"] + typedColumns.map { "q:" + $0.attribute.name }
            + (0..<uniqueConstraintCount).map { "u\($0)" })
    }

    /// `CREATE TABLE` and its indexes.
    func createStatements(namespace: String) -> [String] {
        var columns = ["_pk text PRIMARY KEY", "_seq bigint NOT NULL", "_doc text NOT NULL", "_exact boolean NOT NULL"]
        columns += typedColumns.map { "\($0.sqlName) \($0.sqlType)" }
        columns += (0..<uniqueConstraintCount).map { "u\($0) text UNIQUE DEFERRABLE INITIALLY DEFERRED" }
        var statements = ["CREATE TABLE \(qualifiedName) (\(columns.joined(separator: ", ")))"]
        statements.append("CREATE INDEX ON \(qualifiedName) (_seq)")
        statements.append("CREATE INDEX ON \(qualifiedName) (_pk) WHERE NOT _exact")
        var indexed: Set<String> = []
        for group in (entity?.indices ?? []) + (entity?.uniqueConstraints ?? []) {
            guard let first = group.first, let column = columnsByAttribute[first], indexed.insert(first).inserted else { continue }
            statements.append("CREATE INDEX ON \(qualifiedName) (\(column.sqlName), _seq)")
        }
        return statements
    }

    /// A row's columns other than `_pk` and `_seq`, as bound values: `_doc`, `_exact`, the typed
    /// columns, the unique keys.
    /// - Throws: `DataStoreError` `.unsupportedValue` for a value the JSON codec cannot hold.
    func bindRow(_ values: [String: SnapshotValue], into binds: inout PostgresBindings) throws {
        binds.append(try Self.json(.object(values)))
        var exact = true
        var typed: [SnapshotValue?] = []
        for column in typedColumns {
            let value = column.attribute.value(in: values)
            switch value {
            case .int?, .bool?, .null?: typed.append(value)
            default: typed.append(nil); exact = false
            }
        }
        binds.append(exact)
        for value in typed {
            switch value {
            case .int(let v)?: binds.append(v)
            case .bool(let v)?: binds.append(v)
            default: binds.appendNull()
            }
        }
        for constraint in 0..<uniqueConstraintCount {
            if let entity, let key = entity.uniqueKey(constraint, in: values) {
                binds.append(try Self.json(.array(key)))
            } else {
                binds.appendNull()
            }
        }
    }

    /// The column list matching ``bindRow(_:into:)``.
    var rowColumns: [String] {
        ["_doc", "_exact"] + typedColumns.map(\.sqlName) + (0..<uniqueConstraintCount).map { "u\($0)" }
    }

    /// A value in the snapshot JSON codec, as text.
    static func json(_ value: SnapshotValue) throws -> String {
        do {
            return String(decoding: try SnapshotJSON.encode(value), as: UTF8.self)
        } catch {
            throw DataStoreError(.unsupportedValue, "A value cannot be stored: \(error). Nothing was saved.")
        }
    }

    /// A stored document back as values.
    static func values(fromJSON text: String, table: String) throws -> [String: SnapshotValue] {
        guard case .object(let values) = try parse(text, table: table) else {
            throw DataStoreError(.corruptStore, "A row of \(table) is not a JSON object; the table was changed by something else.")
        }
        return values
    }

    /// A stored value back.
    static func parse(_ text: String, table: String) throws -> SnapshotValue {
        do {
            return try SnapshotJSON.parse(Array(text.utf8))
        } catch {
            throw DataStoreError(.corruptStore, "A row of \(table) does not read back: \(error); the table was changed by something else.")
        }
    }
}
