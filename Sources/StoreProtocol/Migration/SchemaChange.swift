/// One lightweight change between the schema a store holds and the one it is opened with, as
/// ``DataStoreMigrationRequest/changes`` lists them for a backend that changes its storage in
/// place (a SQL backend's `ALTER TABLE`). Relationships are attributes here: a snapshot holds
/// them under their names like any attribute.
///
/// Changes apply in order; an entity renamed earlier in the list is named by its new name after.
public enum SchemaChange: Codable, Sendable, Hashable, CustomStringConvertible {
    /// A new entity: no stored rows.
    case addEntity(String)
    /// An entity the new version leaves out: its rows are dropped (its history stays).
    case removeEntity(String)
    /// The entity's rows and history take the new name (``PersistentModel/originalEntityName``).
    case renameEntity(from: String, to: String)
    /// A new attribute: stored rows without a value get `defaultValue` (`nil`: none; the attribute
    /// is optional and reads as `nil`).
    case addAttribute(entity: String, name: String, defaultValue: SnapshotValue?)
    /// The attribute's values are dropped, from rows and from history.
    case removeAttribute(entity: String, name: String)
    /// The attribute's values move to the new name, in rows and in history
    /// (`@Attribute(originalName:)`).
    case renameAttribute(entity: String, from: String, to: String)
    /// Stored rows are checked against it when it is added: a violation fails the migration.
    case addUniqueConstraint(entity: String, attributes: [String])
    /// A unique constraint the new version drops: no row changes.
    case removeUniqueConstraint(entity: String, attributes: [String])
    /// A new index over these attributes: no row changes (a backend that keeps indexes builds it
    /// from the stored rows).
    case addIndex(entity: String, attributes: [String])
    /// An index the new version drops: no row changes.
    case removeIndex(entity: String, attributes: [String])

    public var description: String {
        switch self {
        case .addEntity(let name): "add entity \(name)"
        case .removeEntity(let name): "remove entity \(name)"
        case .renameEntity(let from, let to): "rename entity \(from) to \(to)"
        case .addAttribute(let entity, let name, let value): "add \(entity).\(name)" + (value.map { " (default \($0))" } ?? "")
        case .removeAttribute(let entity, let name): "remove \(entity).\(name)"
        case .renameAttribute(let entity, let from, let to): "rename \(entity).\(from) to \(to)"
        case .addUniqueConstraint(let entity, let names): "add unique constraint \(entity)(\(names.joined(separator: ", ")))"
        case .removeUniqueConstraint(let entity, let names): "remove unique constraint \(entity)(\(names.joined(separator: ", ")))"
        case .addIndex(let entity, let names): "add index \(entity)(\(names.joined(separator: ", ")))"
        case .removeIndex(let entity, let names): "remove index \(entity)(\(names.joined(separator: ", ")))"
        }
    }
}

/// Lightweight changes applied to stored values: what a backend that keeps snapshots does to each
/// row and each history record when it migrates (or, for a log that does not rewrite its records,
/// when it reads one written before a migration).
public struct RowMigration: Codable, Sendable, Hashable {
    /// The changes, in order.
    public var changes: [SchemaChange]

    /// The row-changing part of `changes` (renames, removals, additions with a default; constraint
    /// and index changes change no row), in order.
    public init(_ changes: [SchemaChange]) {
        self.changes = changes.filter {
            switch $0 {
            case .renameEntity, .removeEntity, .addAttribute, .removeAttribute, .renameAttribute: true
            default: false
            }
        }
    }

    /// Whether no row changes.
    public var isEmpty: Bool { changes.isEmpty }

    /// The entity name the new schema gives rows stored under `entity`; `nil` when it was removed.
    public func entityName(_ entity: String) -> String? {
        var entity = entity
        for change in changes {
            switch change {
            case .renameEntity(let from, let to) where from == entity: entity = to
            case .removeEntity(let name) where name == entity: return nil
            default: break
            }
        }
        return entity
    }

    /// A row of `entity` as the new schema names it; `nil` when its entity was removed.
    /// - Complexity: O(changes) dictionary operations.
    public func migrate(entity: String, values: [String: SnapshotValue]) -> (entity: String, values: [String: SnapshotValue])? {
        var entity = entity
        var values = values
        for change in changes {
            switch change {
            case .renameEntity(let from, let to) where from == entity: entity = to
            case .removeEntity(let name) where name == entity: return nil
            case .addAttribute(let owner, let name, let value?) where owner == entity:
                if values[name] == nil || values[name] == .null { values[name] = value }
            case .removeAttribute(let owner, let name) where owner == entity: values[name] = nil
            case .renameAttribute(let owner, let from, let to) where owner == entity:
                // Only a value that is there moves: a row already renamed keeps its value.
                if let value = values.removeValue(forKey: from) { values[to] = value }
            default: break
            }
        }
        return (entity, values)
    }

    /// A history record as the new schema names things: renamed entities and attributes take
    /// their new names, removed attributes leave `updatedAttributes` and tombstones. Changes to a
    /// removed entity are kept under its old name (typed history skips entities the schema does
    /// not hold).
    public func migrate(_ record: HistoryRecord) -> HistoryRecord {
        var record = record
        for index in record.changes.indices {
            var change = record.changes[index]
            for schemaChange in changes {
                switch schemaChange {
                case .renameEntity(let from, let to) where from == change.entityName: change.entityName = to
                case .removeAttribute(let owner, let name) where owner == change.entityName:
                    change.updatedAttributes?.removeAll { $0 == name }
                    change.tombstone?[name] = nil
                case .renameAttribute(let owner, let from, let to) where owner == change.entityName:
                    change.updatedAttributes = change.updatedAttributes?.map { $0 == from ? to : $0 }
                    if let value = change.tombstone?.removeValue(forKey: from) { change.tombstone?[to] = value }
                default: break
                }
            }
            record.changes[index] = change
        }
        return record
    }
}
