/// Decides how a store moves from the schema it recorded to the one it is opened with: nothing,
/// lightweight changes, the stages of a ``SchemaMigrationPlan``, or a refusal that names what to
/// do.
enum SchemaMigrator {
    /// The migration a store needs, or `nil` when it holds `schema` already.
    ///
    /// Entities the store recorded that `schema` does not hold are kept as they are (another
    /// container, a widget's, may hold fewer models); only a plan's version that leaves one out
    /// removes it.
    /// - Throws: ``DataStoreError/Code/incompatibleSchema`` for a downgrade or a change that needs
    ///   a custom stage; nothing is changed.
    static func request(store: String, recorded: StoredSchema, schema: Schema, plan: (any SchemaMigrationPlan.Type)?) throws -> DataStoreMigrationRequest? {
        if let stored = recorded.version, let opening = schema.version, opening < stored {
            throw downgrade(store, "it holds version \(stored) and is opened with version \(opening)")
        }
        if let stored = recorded.version, schema.version == nil {
            // An unversioned container cannot say whether it is older or newer than the store.
            throw DataStoreError(.incompatibleSchema,
                "The store \(store) holds version \(stored) of a versioned schema, and this container's models differ from it "
                + "and have no version. Open it with Schema(versionedSchema:) of the version the models belong to (a widget with "
                + "the same versioned schema as its app); nothing was changed.")
        }
        // Checked before the changes are worked out: an older schema may look like one that
        // needs code (an attribute it has was renamed since).
        func refuseSuperseded(_ candidate: StoredSchema) throws {
            guard recorded.supersededFingerprints.contains(candidate.fingerprint) else { return }
            throw downgrade(store, "it was migrated from this schema to a newer one")
        }
        try refuseSuperseded(StoredSchema(schema))
        var steps: [DataStoreMigrationRequest.Step] = []
        var changes: [SchemaChange] = []
        var result: StoredSchema
        if let plan, let path = stagePath(plan, recorded: recorded, schema: schema) {
            var current = recorded
            for (from, to) in path {
                let stage = plan.stages.first { $0.fromVersion.versionIdentifier == from.versionIdentifier && $0.toVersion.versionIdentifier == to.versionIdentifier }
                let target = Schema(versionedSchema: to)
                if case .custom(_, _, let willMigrate?, _) = stage {
                    steps.append(.stage("willMigrate \(from.versionIdentifier)", Schema(versionedSchema: from), willMigrate))
                }
                var didMigrate: ((ModelContext) throws -> Void)?
                if case .custom(_, _, _, let body?) = stage { didMigrate = body }
                let step = try Lightweight(store: store, from: current, to: target, keepingAbsentEntities: false, codeFills: didMigrate != nil)
                steps.append(.rows(RowMigration(step.changes)))
                changes += step.changes
                current = step.result
                if let didMigrate {
                    steps.append(.stage("didMigrate \(to.versionIdentifier)", target, didMigrate))
                    steps.append(.verify(store, target))
                }
            }
            // A store opened with other models than the plan's last version (a subset, say)
            // goes the rest of the way lightweight.
            if !current.holds(schema) {
                let rest = try Lightweight(store: store, from: current, to: schema, keepingAbsentEntities: true)
                steps.append(.rows(RowMigration(rest.changes)))
                changes += rest.changes
                current = rest.result
            }
            result = current
        } else {
            let direct = try Lightweight(store: store, from: recorded, to: schema, keepingAbsentEntities: true)
            if direct.result.hasSameContent(as: recorded) { return nil }
            try refuseSuperseded(direct.result)
            steps = [.rows(RowMigration(direct.changes))]
            changes = direct.changes
            result = direct.result
        }
        result.supersededFingerprints = recorded.supersededFingerprints + [recorded.fingerprint]
        return DataStoreMigrationRequest(recordedSchema: recorded, schema: result, changes: changes, steps: steps)
    }

    /// The consecutive pairs of the plan's versions from the one the store holds to the one it is
    /// opened with; `nil` when the plan does not list both (the store then migrates lightweight).
    private static func stagePath(_ plan: any SchemaMigrationPlan.Type, recorded: StoredSchema,
                                  schema: Schema) -> [(any VersionedSchema.Type, any VersionedSchema.Type)]? {
        let versions = plan.schemas
        // A store written before it recorded versions is found by its content.
        let start = versions.firstIndex { $0.versionIdentifier == recorded.version }
            ?? versions.firstIndex { StoredSchema(Schema(versionedSchema: $0)).entities == recorded.entities }
        let end = versions.firstIndex { $0.versionIdentifier == schema.version }
        guard let start, let end, start < end else { return nil }
        return (start..<end).map { (versions[$0], versions[$0 + 1]) }
    }

    private static func downgrade(_ store: String, _ why: String) -> DataStoreError {
        DataStoreError(.incompatibleSchema,
            "The store \(store) holds data of a newer schema than the one it is opened with: \(why). Open it with the "
            + "app version that migrated it (a store is never migrated back); nothing was changed.")
    }
}
