import Foundation

/// Saving: one request per store, each one history transaction.
extension ModelContext {
    func requireWritable(_ storeIndex: Int) throws {
        let store = container.stores[storeIndex]
        func allowsSave<S: DataStore>(_ store: S) -> Bool { store.configuration.allowsSave }
        guard allowsSave(store) else {
            throw DataStoreError(.readOnly,
                "The store '\(store.configuration.name)' is read-only (allowsSave is false); nothing was saved.")
        }
    }

    /// One store's share of a save.
    private struct Plan {
        var inserted: [(Registration, DefaultSnapshot)] = []
        var updated: [(Registration, DefaultSnapshot)] = []
        var deleted: [(Registration, DefaultSnapshot)] = []
        /// For each update, the attributes and relationships changed since the model was last
        /// saved or fetched: all the store writes of it.
        var updatedAttributes: [PersistentIdentifier: Set<String>] = [:]
        /// For each update, the members added to and removed from each changed to-many
        /// relationship since then: what the store applies to the members it holds.
        var toManyChanges: [PersistentIdentifier: [String: ToManyChange]] = [:]
        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    /// Sends every pending change to its store, one request per store, each recorded as one
    /// history transaction. Nothing is sent when nothing changed. Posts ``willSave`` before
    /// sending and ``didSave`` (and yields to ``didSaveSummaries()``) after, with what was saved.
    ///
    /// A changed model saves only what this context changed: the attributes and relationships
    /// whose values differ from those it last saved or fetched
    /// (``DataStoreSaveChangesRequest/updatedAttributes``). The store writes those into its row
    /// and keeps the others, so a change another context or process saved meanwhile to another
    /// attribute stays, and history lists only what this save changed. Of two saves that change
    /// the same attribute, the later save wins. A to-many relationship saves the members this
    /// context added and removed (``DataStoreSaveChangesRequest/toManyChanges``), which the store
    /// applies to the members it holds: two contexts adding or moving different members of one
    /// relationship both keep their change, and a reorder alone saves nothing. The instance here
    /// keeps its own values (a to-many array without the members another save added meanwhile);
    /// a later fetch gives an instance without unsaved changes the stored ones, the other saves' too.
    ///
    /// Before sending, it brings relationships in order (``processPendingChanges()``) and makes
    /// the unique-constraint upserts the context must make itself (see ``insert(_:)``).
    ///
    /// - Throws: ``DataStoreError/Code/readOnly`` (nothing sent), ``DataStoreError/Code/unknownEntity``,
    ///   ``ModelContextError/Code/modelOfAnotherContext`` for an inserted or deleted model of another
    ///   container, ``ModelContextError/Code/primaryKeyChanged`` for a stored model whose `id`
    ///   was changed (nothing sent), what ``processPendingChanges()`` throws (nothing sent), or what a store
    ///   throws. A store that throws is left as it was and this context keeps the changes meant
    ///   for it; with several stores, stores saved before the failing one keep their saves.
    public func save() throws {
        if let unknown = unknownInserts.first { throw DataStoreError.unknownEntity(type(of: unknown).entityName, in: container.schema) }
        if let refusal = foreignModels.first { throw refusal }
        try mergeSecondInstances()
        try processPendingChanges()
        forgetModelsNoOneHolds()
        if try mergeInsertsIntoStoredModels() {
            // The stored models took new relationships: their former and new members follow.
            try bringRelationshipsInStep()
            foldMergedUpsertsIntoUndoGroup()
        }
        try noteStoreUpsertsForUndo()
        try checkRelationshipCounts()
        // By store index (an array: a hashed lookup per model cost about 300 instructions,
        // callgrind); a store whose plan stays empty is not sent anything.
        var plans = [Plan](repeating: Plan(), count: container.stores.count)
        // The changed bits of @Model models this save took: given back to the models whose
        // store the save does not reach (a store that throws, or an error before it).
        var taken = [[(ModelBacking, PropertyBitSet)]](repeating: [], count: container.stores.count)
        defer {
            for (backing, changes) in taken.joined() { backing.restoreChanges(changes) }
        }
        modelsEncodedByLastSave = 0
        // The store of the last model's entity: the models come in runs of one entity, and
        // comparing its name with the last costs less than hashing it.
        var lastStore: (entityName: String, index: Int)?
        for registration in registrations.mayHaveChanged() {
            let storeIndex: Int
            if let lastStore, lastStore.entityName == registration.entity.name {
                storeIndex = lastStore.index
            } else {
                storeIndex = try container.storeIndex(forEntityNamed: registration.entity.name)
                lastStore = (registration.entity.name, storeIndex)
            }
            let id = registration.identifier
            if registration.state != .inserted, registrations[id] !== registration { throw primaryKeyChanged(registration, to: id) }
            // Taken before the values are read: a change made after (by a willSave observer,
            // say) sets a changed bit again, so the saved model is not taken as settled.
            var setSince: PropertyBitSet?
            if registration.state != .deleted {
                let changes = registration.backing.takeChanges()
                taken[storeIndex].append((registration.backing, changes))
                setSince = changes
                lookedAtByLastSave.append(registration)
            }
            if registration.state != .deleted { modelsEncodedByLastSave += 1 }
            switch registration.state {
            case .inserted:
                plans[storeIndex].inserted.append(
                    (registration, DefaultSnapshot(persistentIdentifier: id, values: try registration.currentValues())))
            case .persisted:
                let current = DefaultSnapshot(persistentIdentifier: id, values: try registration.currentValues())
                let changed = registration.changedAttributes(current.values, setSince: setSince)
                if changed.isEmpty {
                    registration.heldBaselineWhenSettled = true
                    continue
                }
                plans[storeIndex].updated.append((registration, current))
                plans[storeIndex].updatedAttributes[id] = Set(changed)
                for relationship in registration.entity.relationships where relationship.isToMany && changed.contains(relationship.name) {
                    plans[storeIndex].toManyChanges[id, default: [:]][relationship.name] =
                        ToManyChange(from: registration.baseline?[relationship.name], to: current.values[relationship.name])
                }
            case .deleted:
                plans[storeIndex].deleted.append(
                    (registration, DefaultSnapshot(persistentIdentifier: id, values: registration.baseline ?? [:])))
            }
        }
        for (storeIndex, plan) in plans.enumerated() where !plan.isEmpty { try requireWritable(storeIndex) }
        postWillSave()
        var summary = SaveSummary()
        // Posted for what the stores took, also when a later store throws.
        defer { postDidSave(summary) }
        for (storeIndex, plan) in plans.enumerated() where !plan.isEmpty {
            var plan = plan
            plan.deleted.sort { $0.0.deleteOrder < $1.0.deleteOrder }
            let result = try send(plan, to: container.stores[storeIndex])
            taken[storeIndex] = []
            apply(result, of: plan)
            for (_, snapshot) in plan.inserted {
                if let stored = result.remappedIdentifiers[snapshot.persistentIdentifier] {
                    summary.updated.append(stored)
                } else {
                    summary.inserted.append(snapshot.persistentIdentifier)
                }
            }
            // A stored model changed and met by a colliding insert in the same save is one update.
            summary.updated += plan.updated.map(\.1.persistentIdentifier).filter { !summary.updated.contains($0) }
            summary.deleted += plan.deleted.map(\.1.persistentIdentifier)
        }
        try resolvePendingRelationships()   // models a collision re-registered
        deletedWhileNew.removeAll()
        refreshUndoCheckpoint()
        recordUpsertsForUndo()
    }

    /// The error for a stored model whose `id` (its primary key) changed since it was stored:
    /// saving it would write a row no store holds and leave the stored one as it was.
    private func primaryKeyChanged(_ registration: Registration, to id: PersistentIdentifier) -> ModelContextError {
        let stored = registration.baseline?["id"].map { "\(PersistentIdentifier(entityName: id.entityName, primaryKey: $0))" }
            ?? "its stored id"
        return ModelContextError(.primaryKeyChanged,
            "\(registration.entity.name) \(stored) has its id changed to \(id) since it was stored; the id is the primary key "
            + "every store keys the model by, so a save cannot move it. Set the id back, then insert a new "
            + "\(registration.entity.name) with the new id and its values and delete the one with the old id; nothing was saved.")
    }

    /// Throws when a model to be saved holds fewer related models than a relationship's
    /// `minimumModelCount` or more than its `maximumModelCount`.
    /// - Throws: ``ModelContextError/Code/relationshipCountViolation`` naming the model, the
    ///   relationship, its count and the bound.
    /// - Complexity: O(*c*) for the models that may have changed.
    private func checkRelationshipCounts() throws {
        guard container.schema.entities.contains(where: { $0.relationships.contains { $0.minimumModelCount != nil || $0.maximumModelCount != nil } })
        else { return }
        for registration in registrations.mayHaveChanged() where registration.state != .deleted {
            for relationship in registration.entity.relationships
            where relationship.minimumModelCount != nil || relationship.maximumModelCount != nil {
                let count = registration.entity.relationshipAccess[relationship.name]?.members(registration.model).count ?? 0
                let place = "\(registration.model.persistentModelID)'s relationship `\(relationship.name)` holds \(count) model\(count == 1 ? "" : "s")"
                if let minimum = relationship.minimumModelCount, count < minimum {
                    throw ModelContextError(.relationshipCountViolation,
                        "\(place), fewer than its minimumModelCount of \(minimum); add related models or delete it; nothing was saved.")
                }
                if let maximum = relationship.maximumModelCount, count > maximum {
                    throw ModelContextError(.relationshipCountViolation,
                        "\(place), more than its maximumModelCount of \(maximum); remove related models; nothing was saved.")
                }
            }
        }
    }

    private func send(_ plan: Plan, to store: any DataStore) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        func run<S: DataStore>(_ store: S) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
            func convert(_ rows: [(Registration, DefaultSnapshot)]) -> [S.Snapshot] {
                // This package's stores take DefaultSnapshots as they are (an init each, through the
                // store's generic witness, cost about 850 instructions a model, callgrind).
                if S.Snapshot.self == DefaultSnapshot.self { return unsafeBitCast(rows.map(\.1), to: [S.Snapshot].self) }
                return rows.map { S.Snapshot(persistentIdentifier: $0.1.persistentIdentifier, values: $0.1.values) }
            }
            let result = try store.save(DataStoreSaveChangesRequest(
                editingState: editingState, inserted: convert(plan.inserted),
                updated: convert(plan.updated), deleted: convert(plan.deleted), updatedAttributes: plan.updatedAttributes,
                toManyChanges: plan.toManyChanges))
            return DataStoreSaveChangesResult(
                for: result.storeIdentifier, remappedIdentifiers: result.remappedIdentifiers,
                snapshotsToReregister: result.snapshotsToReregister.mapValues {
                    DefaultSnapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values)
                })
        }
        return try run(store)
    }

    private func apply(_ result: DataStoreSaveChangesResult<DefaultSnapshot>, of plan: Plan) {
        for (registration, snapshot) in plan.inserted {
            let id = snapshot.persistentIdentifier
            registration.state = .persisted
            registration.baseline = snapshot.values
            registration.heldBaselineWhenSettled = true   // its changes taken before its values were read
            guard let storedID = result.remappedIdentifiers[id] else { continue }
            // A unique-constraint collision: this instance now stands for the stored model.
            registrations[id] = nil
            registrations[storedID] = registration
            guard let stored = result.snapshotsToReregister[storedID] else { continue }
            // It takes the stored model's values, which are what it had when the save read it
            // but its id. A value set since (by a willSave observer) is set again after, so the
            // instance keeps it and the next save sends it.
            var since = (try? registration.currentValues()) ?? snapshot.values
            since["id"] = stored.values["id"]
            try? restore(registration, to: stored.values)
            if since != stored.values { try? registration.model.assignStoredValues(since) }
        }
        for (registration, snapshot) in plan.updated {
            let stored = result.snapshotsToReregister[snapshot.persistentIdentifier]?.values
            registration.baseline = stored ?? snapshot.values
            // Its changes taken before its values were read; values the store changed are compared again.
            registration.heldBaselineWhenSettled = stored == nil
        }
        for (_, snapshot) in plan.deleted { registrations.forgetDeleted(snapshot.persistentIdentifier) }
    }
}
