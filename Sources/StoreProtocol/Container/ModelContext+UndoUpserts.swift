import Foundation

/// Undo of an insert that a save turned into an update of a stored model (an `id` or unique
/// constraint collision, SwiftData's upsert).
///
/// The undo group records such an insert when it is made, as an insert: undoing it would delete
/// the stored model, which existed before. So a save notes each upsert it makes with the stored
/// model's values before it (the held model's, or the row a fetch finds before sending), and once
/// saved, replaces the insert in its group with that update: undoing it gives the stored model its
/// values back, redoing it applies the inserted values again.
extension ModelContext {
    /// An upsert a save makes: the registration that stands for the stored model once saved, the
    /// inserted instance the undo group recorded, and what the stored model was before.
    struct UndoUpsert {
        let target: Registration
        let inserted: any PersistentModel
        let before: UndoState
    }

    /// Notes that `insert` is merged into the held stored model `target`, before `target` takes
    /// its values (``mergeInsertsIntoStoredModels()``).
    func noteUpsertForUndo(of insert: Registration, into target: Registration) {
        guard let recorder = undo else { return }
        let before = recorder.checkpoint[target.model.persistentModelID]?.state ?? .stored(target.baseline ?? [:])
        undo?.upserts.append(UndoUpsert(target: target, inserted: insert.model, before: before))
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
