/// What ``DataStore/migrate(_:)`` is asked to do: move a store's data from the schema it
/// recorded to a new one, and record the new one, all at once or not at all.
///
/// A backend that keeps snapshots passes all its rows through ``migrateRows(_:)`` (which runs the
/// lightweight changes and any custom stages' code) and its history records through
/// ``migrate(_:)``, then replaces its contents atomically. A backend that can change its storage
/// in place (`ALTER TABLE`) may read ``changes`` instead when ``hasCustomStages`` is `false`.
public struct DataStoreMigrationRequest {
    /// The schema the store holds now.
    public let recordedSchema: StoredSchema
    /// The schema to record once migrated (its ``StoredSchema/supersededFingerprints`` include
    /// the recorded one's).
    public let schema: StoredSchema
    /// Every lightweight change, in order (across all stages of a migration plan).
    public let changes: [SchemaChange]
    let steps: [Step]

    enum Step {
        case rows(RowMigration)
        /// A custom stage's closure, run on a context over the rows as `schema`'s models see them.
        case stage(String, Schema, (ModelContext) throws -> Void)
    }

    /// Whether a custom ``MigrationStage`` runs code on the data, so that only
    /// ``migrateRows(_:)`` migrates it exactly.
    public var hasCustomStages: Bool {
        steps.contains { if case .stage = $0 { true } else { false } }
    }

    /// The lightweight changes as one row migration, for backends without custom stages to run
    /// (or for their history records).
    public var rowMigration: RowMigration { RowMigration(changes) }

    /// The store's rows, entity name -> rows (each an attribute-name -> value dictionary with the
    /// primary key under `id`), migrated: renamed, defaulted, with removed attributes and entities
    /// dropped, and changed by custom stages' code.
    /// - Throws: What a custom stage throws, or ``DataStoreError`` when its context cannot save;
    ///   nothing is changed then, and the store must stay as it was.
    /// - Complexity: O(rows × changes) without custom stages; a custom stage decodes what its
    ///   code fetches.
    public func migrateRows(_ rows: [String: [[String: SnapshotValue]]]) throws -> [String: [[String: SnapshotValue]]] {
        var rows = rows
        for step in steps {
            switch step {
            case .rows(let migration):
                guard !migration.isEmpty else { continue }
                var migrated: [String: [[String: SnapshotValue]]] = [:]
                for (entity, entityRows) in rows {
                    guard let name = migration.entityName(entity) else { continue }
                    migrated[name, default: []].append(contentsOf: entityRows.lazy.compactMap { migration.migrate(entity: entity, values: $0)?.values })
                }
                rows = migrated
            case .stage(let name, let schema, let body):
                rows = try MigrationStagingStore.run(name, schema: schema, rows: rows, body)
            }
        }
        return rows
    }

    /// A history record as the new schema names things (``RowMigration``).
    public func migrate(_ record: HistoryRecord) -> HistoryRecord {
        rowMigration.migrate(record)
    }
}
