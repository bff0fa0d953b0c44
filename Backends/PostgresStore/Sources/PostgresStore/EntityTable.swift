#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import PostgresNIO
import StoreBuildingBlocks
import StoreProtocol

/// How one entity's rows are kept: one table per entity in the store's namespace, a column per
/// attribute and relationship.
///
/// | column | what |
/// |---|---|
/// | `_pk text PRIMARY KEY` | the primary key (`id`), as ``PrimaryKeyText`` spells it |
/// | `_seq bigint` | insertion order: the order of unsorted fetches and of ties |
/// | `_exact boolean` | whether every queryable column holds what a query reads in the row (see below) |
/// | `_rest text` | the values no column holds, as one JSON object; `NULL` when there are none |
/// | one column per attribute, named as the attribute | of its kind (``Column/Kind``); `NULL` when the row has no value |
/// | one column per relationship | the destination's primary key, or an array of them, as JSON |
/// | `_uN text` | the canonical values of unique constraint *N* as JSON (`NULL` when one is `nil` or holds a NaN), `EXCLUDE … DEFERRABLE` |
///
/// **Exact round trip.** A value goes into its column only when the column reads it back as the
/// same ``SnapshotValue`` (``Column/holds(_:)``): an `Int` column holds `.int`, not a `UInt64`
/// above `Int64.max`; a `Double` column holds no NaN; a `String` column no NUL character. A value
/// that does not fit, an explicit `.null`, and a value of a name without a column go to `_rest`,
/// which a read merges back. A missing value is `NULL`.
///
/// **Exact queries.** `_exact` says that, for every column a query can name, what SQL sees (the
/// column, `NULL` for no value) is what a query reads in the row (``QueryAttribute/value(in:)``),
/// and that a `String` is in Unicode normalization form C, so that byte comparisons are Swift's
/// comparisons. A query on the columns evaluates rows with `_exact = false` in memory.
///
/// The layout is a function of the recorded schema (``StoredSchema``), so that a migration can
/// read the tables of the schema it migrates from.
struct EntityTable: Sendable {
    /// One attribute's or relationship's column.
    struct Column: Sendable {
        /// What a column holds, and as which SQL type.
        enum Kind: Sendable {
            /// Every integer type: `.int` values, as `bigint`.
            case integer
            /// `.bool`, as `boolean`.
            case bool
            /// `Double` and `Float`: `.double` values other than NaN, as `double precision`.
            case double
            /// `.string` values without a NUL character (which `text` cannot hold), as `text`.
            case string
            /// `.date` values, as `double precision` seconds since 2001 (`Date`'s own
            /// representation: exact, where `timestamptz` would round to microseconds).
            case date
            /// `.uuid`, as `uuid`.
            case uuid
            /// Anything else (relationships, `Data`, arrays, `Codable` structures, enums) in the
            /// snapshot JSON codec, as `text`.
            case json

            /// The kind for a recorded attribute's Swift type name (``StoredSchema/Attribute/valueType``).
            /// A name that merely looks like one (a type of the app's own called `Date`) costs
            /// nothing but speed: its values do not fit the column and go to `_rest`.
            init(valueType: String) {
                switch valueType {
                case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": self = .integer
                case "Bool": self = .bool
                case "Double", "Float": self = .double
                case "String": self = .string
                case "Date": self = .date
                case "UUID": self = .uuid
                default: self = .json
                }
            }

            /// The kind whose column holds the canonical values of a query type.
            init(queryType: QueryValueType) {
                switch queryType {
                case .bool: self = .bool
                case .float, .double: self = .double
                case .string: self = .string
                case .date: self = .date
                case .uuid: self = .uuid
                case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64: self = .integer
                }
            }

            /// The type of the column's values as postgres-nio binds them.
            var elementType: PostgresDataType {
                switch self {
                case .integer: .int8
                case .bool: .bool
                case .double, .date: .float8
                case .string, .json: .text
                case .uuid: .uuid
                }
            }

            var sqlType: String {
                switch self {
                case .integer: "bigint"
                case .bool: "boolean"
                case .double, .date: "double precision"
                case .string, .json: "text"
                case .uuid: "uuid"
                }
            }
        }

        /// The attribute's or relationship's stored name: the key in a snapshot's values.
        let name: String
        let kind: Kind
        /// How a query reads the attribute, when a query can name it.
        let attribute: QueryAttribute?
        /// Whether an index holds the column's values (``indexedColumns``): a `String` column
        /// then holds strings of up to ``longestIndexedString`` bytes, and longer ones go to `_rest`.
        var isIndexed = false
        var sqlName: String { SQLName.quote(name) }

        /// The longest string, in UTF-8 bytes, that an indexed column holds: PostgreSQL's B-tree
        /// entries hold at most about 2,700 bytes, and a longer value would make the save fail.
        /// A longer string is kept in `_rest` and its row is inexact, so that a query reads it
        /// in memory: stored and found, only without the index's help.
        static let longestIndexedString = 2_000

        /// A cell of this column back as a value, `nil` for SQL's `NULL`.
        ///
        /// The common cells are read straight from PostgreSQL's binary format (a big-endian
        /// `int8`, the bits of a `float8`, one byte of `bool`, the UTF-8 bytes of `text`, the 16 bytes of a `uuid`), which
        /// is what postgres-nio's own decoding does after its generic checks; any other type or
        /// format goes through postgres-nio's `decode`. `ColumnStorageTests` reads every kind back.
        /// - Throws: `DataStoreError` `.corruptStore` when the cell does not read as the column.
        func read(_ cell: PostgresCell, table: String) throws -> SnapshotValue? {
            guard var bytes = cell.bytes else { return nil }
            if cell.format == .binary {
                switch (kind, cell.dataType) {
                case (.integer, .int8) where bytes.readableBytes == 8:
                    return bytes.readInteger(as: Int64.self).map(SnapshotValue.int)
                case (.double, .float8) where bytes.readableBytes == 8:
                    return bytes.readInteger(as: UInt64.self).map { .double(Double(bitPattern: $0)) }
                case (.date, .float8) where bytes.readableBytes == 8:
                    return bytes.readInteger(as: UInt64.self).map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
                case (.bool, .bool) where bytes.readableBytes == 1:
                    return bytes.readInteger(as: UInt8.self).map { .bool($0 != 0) }
                case (.string, .text):
                    return .string(bytes.readString(length: bytes.readableBytes) ?? "")
                case (.uuid, .uuid) where bytes.readableBytes == 16:
                    var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                    bytes.withUnsafeReadableBytes { cell in withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: cell) } }
                    return .uuid(UUID(uuid: uuid))
                case (.json, .text):
                    return try EntityTable.parse(bytes.readableBytesView, table: table)
                default:
                    break
                }
            }
            do {
                switch kind {
                case .integer: return .int(try cell.decode(Int64.self))
                case .bool: return .bool(try cell.decode(Bool.self))
                case .double: return .double(try cell.decode(Double.self))
                case .date: return .date(Date(timeIntervalSinceReferenceDate: try cell.decode(Double.self)))
                case .string: return .string(try cell.decode(String.self))
                case .uuid: return .uuid(try cell.decode(UUID.self))
                case .json: return try EntityTable.parse(try cell.decode(String.self), table: table)
                }
            } catch let error as DataStoreError {
                throw error
            } catch {
                throw DataStoreError(.corruptStore, "The column \(name) of \(table) does not read as \(kind.sqlType): \(error); the table was changed by something else.")
            }
        }

        /// Binds a value the column holds (``holds(_:)``) as the column's SQL type.
        /// - Throws: `DataStoreError` `.unsupportedValue` for a value the JSON codec cannot hold.
        func bind(_ value: SnapshotValue, into binds: inout some RowBindings) throws {
            switch (kind, value) {
            case (.integer, .int(let v)): binds.bind(v)
            case (.bool, .bool(let v)): binds.bind(v)
            case (.double, .double(let v)): binds.bind(v)
            case (.date, .date(let d)): binds.bind(d.timeIntervalSinceReferenceDate)
            case (.string, .string(let s)): binds.bind(s)
            case (.uuid, .uuid(let u)): binds.bind(u)
            default: binds.bind(try EntityTable.json(value))
            }
        }

        /// Whether the column reads `value` back as the same ``SnapshotValue``.
        func holds(_ value: SnapshotValue) -> Bool {
            switch (kind, value) {
            case (.integer, .int), (.bool, .bool), (.uuid, .uuid), (.json, _): return true
            case (.double, .double(let v)): return !v.isNaN
            case (.date, .date(let d)): return !d.timeIntervalSinceReferenceDate.isNaN
            case (.string, .string(let s)): return !s.utf8.contains(0) && (!isIndexed || s.utf8.count <= Self.longestIndexedString)
            default: return false
            }
        }
    }

    let entityName: String
    /// `"namespace"."Entity"`.
    let qualifiedName: String
    /// In the order of the table's definition (by name).
    let columns: [Column]
    let columnsByAttribute: [String: Column]
    /// The attribute names of each unique constraint, in the recorded order (column `_uN` is the
    /// *N*-th).
    let uniqueConstraints: [[String]]
    var uniqueConstraintCount: Int { uniqueConstraints.count }
    /// The attribute names of the `#Index` and unique groups, for `CREATE INDEX`.
    private let indexedGroups: [[String]]

    /// The layout of an entity as `recorded`. The attributes a query can name, and how it reads
    /// them, come from the recorded Swift type names too, so that any schema's layout (the one a
    /// migration reads, one a container left out) computes `_exact` as queries need it.
    init(recorded: StoredSchema.Entity, namespace: String) {
        entityName = recorded.name
        qualifiedName = SQLName.quote(namespace) + "." + SQLName.quote(recorded.name)
        var columns: [Column] = recorded.attributes.filter { Self.canBeColumn($0.name) }.map { attribute in
            let queryType = QueryValueType(rawValue: attribute.valueType.lowercased())
            return Column(name: attribute.name, kind: Column.Kind(valueType: attribute.valueType),
                          attribute: queryType.map { QueryAttribute(name: attribute.name, type: $0, isOptional: attribute.isOptional) })
        }
        columns += recorded.relationships.filter { Self.canBeColumn($0.name) }.map { Column(name: $0.name, kind: .json, attribute: nil) }
        let indexedGroups = recorded.indices + recorded.uniqueConstraints
        let indexed = Set(Self.indexedColumnNames(of: indexedGroups, columns: Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })))
        for index in columns.indices { columns[index].isIndexed = indexed.contains(columns[index].name) }
        self.columns = columns.sorted { $0.name < $1.name }
        columnsByAttribute = Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        uniqueConstraints = recorded.uniqueConstraints
        self.indexedGroups = indexedGroups
    }

    /// A table for rows of an entity the store's schema does not hold (kept across a
    /// migration): every value in `_rest`.
    init(foreignEntity name: String, namespace: String) {
        entityName = name
        qualifiedName = SQLName.quote(namespace) + "." + SQLName.quote(name)
        columns = []
        columnsByAttribute = [:]
        uniqueConstraints = []
        indexedGroups = []
    }

    /// The store's own columns; an attribute of one of these names keeps its value in `_rest`.
    static let systemColumns = ["_pk", "_seq", "_exact", "_rest"]

    /// Whether an attribute of this name gets a column: not one of ours (`_pk`, `_uN`), and short
    /// enough that PostgreSQL keeps the name whole (identifiers are cut at 63 bytes).
    static func canBeColumn(_ name: String) -> Bool {
        guard !systemColumns.contains(name), name.utf8.count <= 63, !name.isEmpty, SQLName.holdsNoNUL(name) else { return false }
        if name.hasPrefix("_u"), name.dropFirst(2).allSatisfy(\.isNumber) { return false }
        return true
    }

    /// The column names the table has, for checking a table found in the database.
    var columnNames: Set<String> { Set(columnTypes.keys) }

    /// The SQL type of every column the table has, by name, as `CREATE TABLE` gives it (and as
    /// `information_schema.columns.data_type` spells it), for checking a table found in the database.
    var columnTypes: [String: String] {
        var types = ["_pk": "text", "_seq": "bigint", "_exact": "boolean", "_rest": "text"]
        for column in columns { types[column.name] = column.kind.sqlType }
        for constraint in 0..<uniqueConstraintCount { types["_u\(constraint)"] = "text" }
        return types
    }

    /// `CREATE TABLE` and its indexes.
    ///
    /// A unique constraint's column `_uN` is kept unique by an exclusion constraint over a hash
    /// index, not by `UNIQUE`: a B-tree entry holds at most about 2,700 bytes, a hash entry holds
    /// the value's hash whatever its length, and PostgreSQL compares the values themselves when
    /// two hashes are equal, so the constraint is exact. Deferred to the commit, as a save
    /// writes its rows' final states in any order.
    func createStatements() -> [String] {
        var definitions = ["_pk text PRIMARY KEY", "_seq bigint NOT NULL", "_exact boolean NOT NULL", "_rest text"]
        definitions += columns.map { "\($0.sqlName) \($0.kind.sqlType)" }
        definitions += (0..<uniqueConstraintCount).map { "_u\($0) text" }
        definitions += (0..<uniqueConstraintCount).map { "EXCLUDE USING hash (_u\($0) WITH =) DEFERRABLE INITIALLY DEFERRED" }
        return ["CREATE TABLE \(qualifiedName) (\(definitions.joined(separator: ", ")))"] + indexStatements()
    }

    /// The indexes besides the primary key and the unique columns': insertion order, inexact
    /// rows, and the first attribute of each `#Index` and unique constraint (with `_seq`, the order
    /// of ties). `String` columns are indexed in the "C" collation, the byte order queries compare in.
    func indexStatements() -> [String] {
        ["CREATE INDEX ON \(qualifiedName) (_seq)", "CREATE INDEX ON \(qualifiedName) (_pk) WHERE NOT _exact"]
            + indexedColumns.map { column in
                let key = column.kind == .string ? "\(column.sqlName) COLLATE \"C\"" : column.sqlName
                return "CREATE INDEX ON \(qualifiedName) (\(key), _seq)"
            }
    }

    /// The columns indexed for the `#Index` and unique groups: each group's first attribute,
    /// once, when it has a column a query compares.
    var indexedColumns: [Column] {
        Self.indexedColumnNames(of: indexedGroups, columns: columnsByAttribute).compactMap { columnsByAttribute[$0] }
    }

    /// The names of ``indexedColumns``, in order, for groups over these columns.
    private static func indexedColumnNames(of groups: [[String]], columns: [String: Column]) -> [String] {
        var indexed: Set<String> = []
        return groups.compactMap { group in
            guard let first = group.first, let column = columns[first], column.kind != .json,
                  indexed.insert(first).inserted else { return nil }
            return first
        }
    }

    // MARK: Rows

    /// The columns a read selects, in the order ``snapshot(from:at:)`` decodes them.
    var selectList: String { (["_pk", "_rest"] + columns.map(\.sqlName)).joined(separator: ", ") }

    /// The columns ``bindRow(_:into:)`` binds, in its order (all but `_pk` and `_seq`).
    var rowColumns: [String] {
        ["_exact", "_rest"] + columns.map(\.sqlName) + (0..<uniqueConstraintCount).map { "_u\($0)" }
    }

    /// The element types of ``rowColumns``, for ``ColumnArrays``.
    var rowElementTypes: [PostgresDataType] {
        [.bool, .text] + columns.map(\.kind.elementType) + Array(repeating: .text, count: uniqueConstraintCount)
    }

    /// `unnest($1::text[], $2::boolean[], …)` over the arrays of `_pk` and ``rowColumns`` that
    /// ``ColumnArrays`` binds.
    var unnest: String { unnest(from: 1) }

    /// ``unnest`` with the arrays as parameters `$first…`.
    func unnest(from first: Int) -> String {
        let types = ["text", "boolean", "text"] + columns.map(\.kind.sqlType)
            + Array(repeating: "text", count: uniqueConstraintCount)
        return "unnest(" + types.enumerated().map { "$\($0.offset + first)::\($0.element)[]" }.joined(separator: ", ") + ")"
    }

    /// A row's values as bound parameters for ``rowColumns``.
    /// - Throws: `DataStoreError` `.unsupportedValue` for a value the JSON codec cannot hold.
    func bindRow(_ values: [String: SnapshotValue], into binds: inout some RowBindings) throws {
        // First what goes where: the values no column holds, and whether the row is exact.
        var rest: [String: SnapshotValue] = [:]
        var exact = true
        var held = 0
        for column in columns {
            let value = values[column.name]
            if value != nil { held += 1 }
            if let value, column.holds(value) {
                if let attribute = column.attribute, !Self.queryReadsExactly(value, as: attribute) { exact = false }
            } else {
                if let value { rest[column.name] = value }
                // SQL sees NULL: exact when the query reads nil too.
                if let attribute = column.attribute, attribute.value(in: values) != .null { exact = false }
            }
        }
        if held < values.count {
            for (name, value) in values where columnsByAttribute[name] == nil { rest[name] = value }
        }
        binds.bind(exact)
        if rest.isEmpty { binds.bindNull() } else { binds.bind(try Self.json(.object(rest))) }
        for column in columns {
            guard let value = values[column.name], column.holds(value) else {
                binds.bindNull()
                continue
            }
            try column.bind(value, into: &binds)
        }
        for constraint in uniqueConstraints.indices {
            if let key = try uniqueKey(constraint, in: values) { binds.bind(key) } else { binds.bindNull() }
        }
    }

    /// The values of unique constraint `constraint` in `values` as the text of column `_uN`;
    /// `nil` (SQL `NULL`, which the `EXCLUDE` constraint and `= ANY` never match) when one is
    /// absent or `nil`, or holds a NaN: `SnapshotValue`'s `==` finds a NaN equal to nothing, so
    /// two rows holding one never collide (as in `SnapshotTable`).
    ///
    /// Values that Swift finds equal have one text, the JSON of their `SnapshotValue.canonical`
    /// form, so that the column's constraint and the lookups of a save compare as
    /// `SnapshotValue`'s `==` does.
    /// - Throws: `DataStoreError` `.unsupportedValue` for a value the JSON codec cannot hold.
    func uniqueKey(_ constraint: Int, in values: [String: SnapshotValue]) throws -> String? {
        var key: [SnapshotValue] = []
        for name in uniqueConstraints[constraint] {
            guard let value = values[name], value != .null, !value.holdsNaN else { return nil }
            key.append(value.canonical)
        }
        return try Self.json(.array(key))
    }

    /// Whether a value its column holds is what a query reads: its canonical form for the
    /// attribute's type is the value itself, and a `String` is in normalization form C.
    static func queryReadsExactly(_ value: SnapshotValue, as attribute: QueryAttribute) -> Bool {
        guard let canonical = attribute.type.canonicalValue(of: value) else { return false }
        switch (value, canonical) {
        case (.string(let s), _): return isNFC(s)
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        default: return canonical == value
        }
    }

    /// Whether a string is in Unicode normalization form C (what PostgreSQL's byte comparison
    /// needs to agree with Swift's, which compares canonical equivalents as equal).
    static func isNFC(_ string: String) -> Bool {
        if string.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return string.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(string.unicodeScalars)
    }

    /// A row back, from the cells at `start…` of a statement that selected ``selectList``
    /// (unnamed or prepared: its cells are read as binary, see ``PreparedStatements``).
    /// - Throws: `DataStoreError` `.corruptStore` when a cell does not read as its column.
    func snapshot(from row: PostgresRow, at start: Int) throws -> DefaultSnapshot {
        var values: [String: SnapshotValue] = [:]
        values.reserveCapacity(columns.count)
        var pk: SnapshotValue = .null
        do {
            var index = 0
            for var cell in row {
                defer { index += 1 }
                cell.format = .binary
                guard index >= start else { continue }
                switch index - start {
                case 0:
                    guard let bytes = cell.bytes else { throw DataStoreError(.corruptStore, "A row of \(qualifiedName) has no primary key.") }
                    pk = try PrimaryKeyText.key(bytes.readableBytesView, table: qualifiedName)
                case 1:
                    guard cell.bytes != nil, let text = try cell.decode(String?.self) else { continue }
                    guard case .object(let rest) = try Self.parse(text, table: qualifiedName) else {
                        throw DataStoreError(.corruptStore, "A row of \(qualifiedName) has a _rest that is not a JSON object; the table was changed by something else.")
                    }
                    values.merge(rest) { _, rest in rest }
                default:
                    let column = columns[index - start - 2]
                    let value = try column.read(cell, table: qualifiedName)
                    if let value { values[column.name] = value }
                }
            }
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(.corruptStore, "A row of \(qualifiedName) does not read back: \(error); the table was changed by something else.")
        }
        return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entityName, primaryKey: pk), values: values)
    }

    // MARK: JSON

    /// A value in the snapshot JSON codec, as text.
    static func json(_ value: SnapshotValue) throws -> String {
        do {
            return String(decoding: try SnapshotJSON.encode(value), as: UTF8.self)
        } catch {
            throw DataStoreError(.unsupportedValue, "A value cannot be stored: \(error). Nothing was saved.")
        }
    }

    /// A stored value back.
    static func parse(_ text: String, table: String) throws -> SnapshotValue {
        try parse(text.utf8, table: table)
    }

    /// A stored value back, from its UTF-8 bytes.
    static func parse(_ bytes: some Collection<UInt8>, table: String) throws -> SnapshotValue {
        do {
            return try SnapshotJSON.parse(bytes)
        } catch {
            throw DataStoreError(.corruptStore, "A row of \(table) does not read back: \(error); the table was changed by something else.")
        }
    }
}
#endif
