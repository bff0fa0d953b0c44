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

    init(recordedSchema: StoredSchema, schema: StoredSchema, changes: [SchemaChange], steps: [Step]) {
        self.recordedSchema = recordedSchema
        self.schema = schema
        self.changes = changes
        self.steps = steps
        rowMigration = RowMigration(changes)
    }

    enum Step {
        case rows(RowMigration)
        /// A custom stage's closure, run on a context over the rows as `schema`'s models see them.
        case stage(String, Schema, (ModelContext) throws -> Void)
        /// Checks that every row of the schema's entities reads as its model, after a stage's
        /// code was to fill what the lightweight changes could not.
        case verify(String, Schema)
    }

    /// Whether a custom ``MigrationStage`` runs code on the data, so that only
    /// ``migrateRows(_:)`` migrates it exactly.
    public var hasCustomStages: Bool {
        steps.contains { if case .stage = $0 { true } else { false } }
    }

    /// The lightweight changes as one row migration, made once, for backends without custom
    /// stages to run (or for their history records).
    public let rowMigration: RowMigration

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
            case .verify(let store, let schema):
                try Self.verify(rows, store: store, schema: schema)
            }
        }
        return rows
    }

    /// - Throws: ``DataStoreError/Code/incompatibleSchema`` naming the first row that does not
    ///   read as its model.
    private static func verify(_ rows: [String: [[String: SnapshotValue]]], store: String, schema: Schema) throws {
        for entity in schema.entities {
            func check<Model: PersistentModel>(_ type: Model.Type) throws {
                for values in rows[entity.name] ?? [] {
                    do {
                        _ = try Model(storedValues: values)
                    } catch {
                        throw DataStoreError(.incompatibleSchema,
                            "The store \(store) cannot be migrated: after the custom stage's didMigrate, \(entity.name) "
                            + "\(values["id"] ?? .null) does not read as \(Model.self) (\(error)). Set every new or retyped "
                            + "attribute in didMigrate; nothing was changed.")
                    }
                }
            }
            try check(entity.modelType)
        }
    }

    /// A history record as the new schema names things (``RowMigration``).
    public func migrate(_ record: HistoryRecord) -> HistoryRecord {
        rowMigration.migrate(record)
    }
}
