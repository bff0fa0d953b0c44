import StoreProtocol

/// The query-attribute columns of an entity's rows, filled by a reader as it reads the rows from
/// a file: what ``SnapshotTable/load(_:rows:columns:)`` takes instead of filling every column
/// from every row's dictionary (a hashed lookup of each attribute's name in each row).
///
/// A reader resolves a key to its column once (``column(named:)``; rows of one entity have the
/// same keys in the same order), hands over each value of the row it is reading
/// (``set(_:to:)``), then ends the row (``endRow()``), or hands over a whole row it read
/// otherwise (``appendRow(_:)``).
public struct RowColumns: Sendable {
    var columns: [AttributeColumn]
    private let columnByName: [String: Int]
    /// The rows ended so far; the row being read is row `rowCount`.
    public private(set) var rowCount = 0

    /// Empty columns for the query attributes of `entity`.
    public init(entity: Schema.Entity) {
        columns = AttributeColumn.columns(of: entity)
        columnByName = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.attribute.name, $0) })
    }

    /// The column of the attribute stored under `name`; `nil` for a key no column holds.
    /// - Complexity: O(1): one dictionary lookup, made once per key position, not per row.
    public func column(named name: String) -> Int? { columnByName[name] }

    /// Gives the row being read the value `stored` in `column` (a later value for the same key
    /// replaces an earlier one, as in the row's dictionary).
    public mutating func set(_ column: Int, to stored: SnapshotValue) {
        columns[column].write(stored: stored, at: rowCount)
    }

    /// Ends the row being read: the columns it gave no value hold what an absent key means.
    public mutating func endRow() {
        for column in columns.indices where columns[column].count == rowCount {
            columns[column].write(stored: nil, at: rowCount)
        }
        rowCount += 1
    }

    /// Appends a whole row, each column read from its dictionary.
    public mutating func appendRow(_ values: [String: SnapshotValue]) {
        for column in columns.indices { columns[column].write(values, at: rowCount) }
        rowCount += 1
    }

    /// Reserves room for `count` rows in every column.
    public mutating func reserveCapacity(_ count: Int) {
        for column in columns.indices { columns[column].reserveCapacity(count) }
    }
}

/// Why ``SnapshotTable/load(_:rows:columns:)`` refused a row.
public enum RowLoadRefusal: Error, Sendable {
    /// A row has no `id` value.
    case missingPrimaryKey
    /// Two rows have the same `id` (a file holds each row once: one of them would be dropped unseen).
    case duplicatePrimaryKey(SnapshotValue)
}

extension SnapshotTable {
    /// Appends the rows of `entityName` read from a store's file, in order, as writing each one
    /// with ``write(_:)`` does, refusing a row without an `id` and a second row with an `id`
    /// already loaded. `columns`, when the reader filled them for these rows (in order, for
    /// this entity), become the entity's columns when it has no rows yet, instead of being
    /// filled again from each row's dictionary.
    ///
    /// For opening a store: when it throws, the table holds part of the rows; discard it.
    /// - Throws: ``RowLoadRefusal``; `DataStoreError/Code/unknownEntity`;
    ///   `DataStoreError/Code/constraintViolation` when two rows collide on a unique constraint.
    /// - Complexity: O(*n*), and O(*n* log *n*) per ordered index.
    public mutating func load(_ entityName: String, rows: [[String: SnapshotValue]], columns: RowColumns?) throws {
        guard var entityRows = entities.removeValue(forKey: entityName) else {
            throw DataStoreError.unknownEntity(entityName, in: schema)
        }
        defer { entities[entityName] = entityRows }
        try entityRows.load(rows, columns: columns)
    }
}

extension EntityRows {
    /// See `SnapshotTable.load(_:rows:columns:)`.
    mutating func load(_ rows: [[String: SnapshotValue]], columns loaded: RowColumns?) throws {
        let entityName = entity.name
        // The reader's columns are taken whole only into an empty entity without unique
        // constraints (whose rows go through `put(_:)` for its collision check and message).
        guard let loaded, slots.isEmpty, uniqueIndices.isEmpty, loaded.rowCount == rows.count,
              loaded.columns.map(\.attribute) == columns.map(\.attribute) else {
            for values in rows {
                guard let key = values["id"] else { throw RowLoadRefusal.missingPrimaryKey }
                guard slotByKey[key] == nil else { throw RowLoadRefusal.duplicatePrimaryKey(key) }
                try put(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entityName, primaryKey: key), values: values))
            }
            return
        }
        slots.reserveCapacity(rows.count)
        sequences.reserveCapacity(rows.count)
        slotByKey.reserveCapacity(rows.count)
        for values in rows {
            guard let key = values["id"] else { throw RowLoadRefusal.missingPrimaryKey }
            guard slotByKey.updateValue(slots.count, forKey: key) == nil else { throw RowLoadRefusal.duplicatePrimaryKey(key) }
            let sequence = nextSequence
            nextSequence += 1
            slots.append(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entityName, primaryKey: key), values: values))
            sequences.append(sequence)
            for index in indexes.indices { indexes[index].insert(values, primaryKey: key, sequence: sequence) }
        }
        columns = loaded.columns
    }
}
