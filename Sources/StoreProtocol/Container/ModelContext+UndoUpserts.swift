import Foundation

/// Undo of an insert that a save turned into an update of a stored model (an `id` or unique
/// constraint collision, SwiftData's upsert).
///
/// The undo group records such an insert when it is made, as an insert: undoing it would delete
/// the stored model, which existed before. So a save puts the update in its place: an upsert the
/// context makes (into a model it holds or loads) is folded into that group with the changes of
/// the related models; for one the store makes, the save fetches the stored row before sending
/// and, once saved, replaces the insert with the row's update. Undoing it gives the stored model
/// its values back, redoing it applies the inserted values again.
extension ModelContext {
    /// An upsert the store makes: the registration that stands for the stored model once saved,
    /// the inserted instance the undo group recorded, and what the stored row was before.
    struct UndoUpsert {
        let target: Registration
        let inserted: any PersistentModel
        let before: UndoState
    }

    /// After the context merged inserts into stored models it holds or loaded
    /// (``mergeInsertsIntoStoredModels()``) and brought inverses in step: the group that recorded
    /// those inserts takes what the merge did instead (the stored models' updates, their former
    /// and new related models' changes), so that undoing it restores them.
    func foldMergedUpsertsIntoUndoGroup() {
        guard let manager = undo?.manager else { return }
        let changes = takeUndoChanges()
        // The merged inserts: recorded as inserted when the group closed, gone now.
        let merged = changes.filter { $0.after == .absent }.map(\.model)
        guard let groupIndex = manager.undoGroups.indices.last(where: { index in
            manager.undoGroups[index].contains { change in change.before == .absent && merged.contains { $0 === change.model } }
        }) else {
            if !changes.isEmpty { manager.record(changes) }
            return
        }
        var group = manager.undoGroups[groupIndex]
        for change in changes {
            guard let index = group.firstIndex(where: { $0.model === change.model }) else {
                group.append(change)
                continue
            }
            group[index].after = change.after
            if Self.same(group[index].before, group[index].after, change.model.persistentModelID) { group.remove(at: index) }
        }
        manager.undoGroups[groupIndex] = group
    }

    /// Before sending: notes the inserts the store will turn into updates, with the stored rows'
    /// values, which the save overwrites. Only while an undo manager is set.
    /// - Complexity: one store fetch per entity with inserts (by `id`), plus one per unique
    ///   constraint of each inserted model of an entity that has them and whose `id` is not stored.
    func noteStoreUpsertsForUndo() throws {
        guard undo != nil else { return }
        let inserts = Dictionary(grouping: registrations.mayHaveChanged().filter { $0.state == .inserted }, by: \.entity.name)
        for registrations in inserts.values {
            try noteStoreUpserts(registrations[0].entity.modelType, registrations)
        }
    }

    private func noteStoreUpserts<T: PersistentModel>(_ type: T.Type, _ inserts: [Registration]) throws {
        let storedByID = Dictionary(
            try storedSnapshots(T.self, primaryKeys: inserts.map(\.model.persistentModelID.primaryKey)).map { ($0.persistentIdentifier, $0) },
            uniquingKeysWith: { first, _ in first })
        for insert in inserts {
            var stored = storedByID[insert.model.persistentModelID]
            if stored == nil, !insert.entity.uniqueConstraints.isEmpty {
                stored = try storedSnapshot(T.self, matchingUniqueValuesOf: insert.currentValues(), entity: insert.entity)
            }
            // A stored model the context holds otherwise (deleted by this save, or changed to
            // other values) is not what the insert updates.
            guard let stored, registrations[stored.persistentIdentifier].map({ $0 === insert }) ?? true else { continue }
            undo?.upserts.append(UndoUpsert(target: insert, inserted: insert.model, before: .stored(stored.values)))
        }
    }

    /// After a save: each noted upsert's insert, in the undo group that recorded it, becomes the
    /// stored model's update from its values before to those saved.
    func recordUpsertsForUndo() {
        guard let recorder = undo, !recorder.upserts.isEmpty else { return }
        undo?.upserts = []
        let manager = recorder.manager
        for upsert in recorder.upserts where upsert.target.state == .persisted {
            let recorded = manager.undoGroups.indices.reversed().lazy.compactMap { group in
                manager.undoGroups[group].firstIndex { $0.model === upsert.inserted && $0.before == .absent }.map { (group, $0) }
            }.first
            guard let (group, index) = recorded else { continue }
            manager.undoGroups[group][index] = UndoChange(
                model: upsert.target.model, entity: upsert.target.entity, before: upsert.before, after: state(of: upsert.target))
        }
    }
}
