/// Decides how a store moves from the schema it recorded to the one it is opened with: nothing,
/// lightweight changes, the stages of a ``SchemaMigrationPlan``, or a refusal that names what to
/// do.
enum SchemaMigrator {
    /// The migration a store needs, or `nil` when it holds `schema` already.
    ///
    /// Entities the store recorded that `schema` does not hold are kept as they are (another
    /// container, a widget's, may hold fewer models); only a plan's version that leaves one out
    /// removes it.
    /// - Throws: ``DataStoreError/Code/incompatibleSchema`` for a downgrade, a change that needs
    ///   a custom stage, or a plan that does not lead from the store's version to the
    ///   container's stage by stage (see ``stagePath(_:store:recorded:schema:)``); nothing is
    ///   changed.
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
        if let plan, let path = try stagePath(plan, store: store, recorded: recorded, schema: schema) {
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
    /// opened with; `nil` when neither names a version (an unversioned store whose models are
    /// none of the plan's versions, or an unversioned container) or they are the same version:
    /// the store then migrates lightweight.
    ///
    /// A plan must lead there stage by stage, or a stage would silently never run: each stage
    /// connects a version of `schemas` to the next one (a pair without a stage is lightweight),
    /// and `schemas` lists the store's version and the container's.
    /// - Throws: ``DataStoreError/Code/incompatibleSchema`` naming the missing step: a stage that
    ///   skips a version or names one `schemas` does not list, two stages for one step, or a
    ///   store or container version the plan does not list.
    private static func stagePath(_ plan: any SchemaMigrationPlan.Type, store: String, recorded: StoredSchema,
                                  schema: Schema) throws -> [(any VersionedSchema.Type, any VersionedSchema.Type)]? {
        let versions = plan.schemas
        let identifiers = versions.map { $0.versionIdentifier }
        let planName = String(describing: plan)
        func refuse(_ problem: String) -> DataStoreError {
            planGap(store: store, plan: planName, problem)
        }
        var steps: Set<Int> = []
        for stage in plan.stages {
            let from = stage.fromVersion.versionIdentifier, to = stage.toVersion.versionIdentifier
            guard let index = identifiers.firstIndex(of: from), identifiers.contains(to) else {
                throw refuse("the stage from version \(from) to \(to) names a version that `schemas` "
                    + "(\(identifiers.map { $0.description }.joined(separator: ", "))) does not list, so it would never run")
            }
            guard index + 1 < identifiers.count, identifiers[index + 1] == to else {
                let next = index + 1 < identifiers.count ? "version \(identifiers[index + 1])" : "no version"
                throw refuse("the stage from version \(from) to \(to) skips a step: `schemas` has \(next) after \(from), "
                    + "so the stage would never run. Add a stage for each step instead")
            }
            guard steps.insert(index).inserted else {
                throw refuse("two stages go from version \(from) to \(to); only one would run")
            }
        }
        // A store written without a version is found by its content; one with a version, by it.
        let start = if let stored = recorded.version {
            versions.firstIndex { $0.versionIdentifier == stored }
        } else {
            versions.firstIndex { StoredSchema(Schema(versionedSchema: $0)).entities == recorded.entities }
        }
        let end = versions.firstIndex { $0.versionIdentifier == schema.version }
        if start == nil, let stored = recorded.version {
            throw refuse("`schemas` does not list version \(stored), which the store holds: there is no step from it to "
                + "version \(schema.version.map { $0.description } ?? "-"). Add it to `schemas` with a stage to the version after it")
        }
        if end == nil, let opening = schema.version {
            throw refuse("`schemas` does not list version \(opening), which this container opens the store with: there is "
                + "no step to it. Add it to `schemas` with a stage from the version before it")
        }
        guard let start, let end, start < end else { return nil }
        return (start..<end).map { (versions[$0], versions[$0 + 1]) }
    }

    private static func planGap(store: String, plan: String, _ problem: String) -> DataStoreError {
        DataStoreError(.incompatibleSchema,
            "The store \(store) cannot be migrated: in the migration plan \(plan), \(problem). A plan lists every version in "
            + "`schemas`, oldest first, and each stage goes from one of them to the next; nothing was changed.")
    }

    private static func downgrade(_ store: String, _ why: String) -> DataStoreError {
        DataStoreError(.incompatibleSchema,
            "The store \(store) holds data of a newer schema than the one it is opened with: \(why). Open it with the "
            + "app version that migrated it (a store is never migrated back); nothing was changed.")
    }
}
