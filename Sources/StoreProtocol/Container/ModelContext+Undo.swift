import Foundation

/// Undo and redo of a context's changes, in groups: SwiftData's `ModelContext.undoManager`, for
/// platforms whose Foundation has no `UndoManager` (Linux's has none).
///
/// ```swift
/// context.undoManager = ModelUndoManager()
/// trip.name = "Iceland in June"
/// try context.processPendingChanges()        // closes the group (save() closes one too)
/// context.undoManager?.undo()                // trip.name is back; a save now saves that
/// ```
///
/// The context finds a group's changes by comparing each model with what it was when the previous group closed: ``ModelContext/processPendingChanges()``
/// and ``ModelContext/save()`` close a group with every insert, delete, attribute and
/// relationship change made since (inverses included). Undoing a saved change makes the reverse
/// change pending; saving it records it in history, so history shows both and the store the net
/// effect. An undo or redo sets only the attributes and relationships its group changed: a value
/// another context saved, which a fetch gave the model since, stays. Undoing a saved insert that
/// became an update of a stored model (an upsert, see ``ModelContext/insert(_:)``) gives the
/// stored model its former values back. ``ModelContext/rollback()`` removes every action.
///
/// Undo across a save: a save closes a group and keeps every group, so undo walks back through
/// saved groups too, each undone change pending until the next save (SwiftData documents no
/// behaviour here; this is Core Data's). On the container's main context, which autosaves, each
/// autosave closes the group of the changes it saves; turn undo on there with
/// `container.isUndoEnabled = true` (``ModelContainer/isUndoEnabled``) or by assigning a manager.
///
/// Cost: closing a group encodes every registered model; while a manager is set, the context
/// keeps every model a group holds (it is not forgotten at saves), and a save with inserts makes
/// one store fetch per entity inserted (by `id`), plus one per unique constraint of each
/// inserted model whose `id` is not stored, to keep the values an upsert overwrites.
public final class ModelUndoManager {
    /// The most groups kept; 0 keeps every one.
    public var levelsOfUndo = 0
    weak var context: ModelContext?
    var undoGroups: [[ModelContext.UndoChange]] = []
    var redoGroups: [[ModelContext.UndoChange]] = []

    /// An empty undo stack; assign it to ``ModelContext/undoManager`` to start recording.
    public init() {}

    /// Whether there is a group to undo, changes made since the last group included (it closes
    /// that group first, as ``undo()`` does).
    /// - Complexity: closing a group: an encode of every model the context holds.
    public var canUndo: Bool {
        context?.closeOpenUndoGroup()
        return !undoGroups.isEmpty
    }
    /// Whether there is an undone group to redo; a change made since the undo ends it (this closes
    /// the open group first, as ``redo()`` does).
    /// - Complexity: closing a group: an encode of every model the context holds.
    public var canRedo: Bool {
        context?.closeOpenUndoGroup()
        return !redoGroups.isEmpty
    }

    /// Returns the models of the last group to what they were before it, as pending changes;
    /// nothing when there is none (or the context is gone). Changes made since the last group
    /// closed are that group: it is closed first (``ModelContext/processPendingChanges()``), so
    /// an undo right after a change undoes that change.
    public func undo() {
        context?.closeOpenUndoGroup()
        guard let context, let group = undoGroups.popLast() else { return }
        context.apply(group.reversed().map { ($0, $0.before) })
        redoGroups.append(group)
        context.autosave.changeWasMade()
    }

    /// Applies the last undone group again; nothing when there is none. The open group is closed
    /// first: a change made since the undo ends what can be redone, as any new change does.
    public func redo() {
        context?.closeOpenUndoGroup()
        guard let context, let group = redoGroups.popLast() else { return }
        context.apply(group.map { ($0, $0.after) })
        undoGroups.append(group)
        context.autosave.changeWasMade()
    }

    /// Forgets every group.
    public func removeAllActions() {
        undoGroups.removeAll()
        redoGroups.removeAll()
    }

    func record(_ group: [ModelContext.UndoChange]) {
        undoGroups.append(group)
        redoGroups.removeAll()
        if levelsOfUndo > 0, undoGroups.count > levelsOfUndo { undoGroups.removeFirst(undoGroups.count - levelsOfUndo) }
    }
}

extension ModelContext {
    /// What a model was, for undo: absent, inserted and not saved, stored, or deleted.
    enum UndoState: Equatable {
        case absent
        case inserted([String: SnapshotValue])
        case stored([String: SnapshotValue])
        case deleted([String: SnapshotValue])
    }

    /// One model's change in a group.
    struct UndoChange {
        let model: any PersistentModel
        let entity: Schema.Entity
        var before: UndoState
        var after: UndoState

        /// The attributes and relationships the change set, when it changed a model's values
        /// and not whether it exists; `nil` for an insert or a delete (it sets all of them).
        var changedNames: [String]? {
            switch (before, after) {
            case let (.stored(old), .stored(new)), let (.inserted(old), .inserted(new)):
                DefaultSnapshot(persistentIdentifier: model.persistentModelID, values: new).changedAttributes(from: old)
            default: nil
            }
        }
    }

    /// The context's undo manager; setting one starts recording from the models as they are.
    public var undoManager: ModelUndoManager? {
        get { undo?.manager }
        set {
            undo?.manager.context = nil
            guard let manager = newValue else {
                undo = nil
                return
            }
            manager.context = self
            var recorder = UndoRecorder(manager: manager)
            // Settled models are as stored, which is what a model missing from the checkpoint is.
            for registration in registrations.mayHaveChanged(inOrder: false) {
                recorder.checkpoint[registration.model.persistentModelID] = (registration.model, state(of: registration))
            }
            undo = recorder
        }
    }

    /// The manager and what each model was when the last group closed (models never changed
    /// since they were fetched are left out: they are as their stored values say).
    struct UndoRecorder {
        let manager: ModelUndoManager
        var checkpoint: [PersistentIdentifier: (model: any PersistentModel, state: UndoState)] = [:]
        /// The upserts the store makes in the save under way, to record as updates once saved.
        var upserts: [UndoUpsert] = []
    }

    func state(of registration: Registration) -> UndoState {
        switch registration.state {
        case .inserted: .inserted((try? registration.currentValues()) ?? [:])
        case .persisted: .stored((try? registration.currentValues()) ?? registration.baseline ?? [:])
        case .deleted: .deleted(registration.baseline ?? [:])
        }
    }

    /// Closes the open undo group before the manager reads or moves its stacks, with inverses
    /// and delete rules applied first, as a save would (``processPendingChanges()``). When a delete
    /// rule refuses (deny), the group is closed as the models are; the save will refuse.
    func closeOpenUndoGroup() {
        do { try processPendingChanges() } catch { closeUndoGroup() }
    }

    /// Closes an undo group with the changes made since the last one (``processPendingChanges()``).
    func closeUndoGroup() {
        guard let manager = undo?.manager else { return }
        let group = takeUndoChanges()
        if !group.isEmpty { manager.record(group) }
    }

    /// The changes made since the last group closed, with the checkpoint moved to now.
    func takeUndoChanges() -> [UndoChange] {
        guard var recorder = undo else { return [] }
        var group: [UndoChange] = []
        // Those that may have changed, and those whose checkpoint may be older than their values.
        var looked = Set<PersistentIdentifier>()
        let checkpointed = recorder.checkpoint.keys.compactMap { registrations[$0] }
        for registration in (registrations.mayHaveChanged(inOrder: false) + checkpointed).sorted(by: { $0.order < $1.order }) {
            let id = registration.model.persistentModelID
            guard looked.insert(id).inserted else { continue }
            let before = recorder.checkpoint[id]?.state ?? (registration.state == .inserted ? .absent : .stored(registration.baseline ?? [:]))
            let after = state(of: registration)
            guard !Self.same(before, after, id) else { continue }
            group.append(UndoChange(model: registration.model, entity: registration.entity, before: before, after: after))
            recorder.checkpoint[id] = (registration.model, after)
        }
        // Inserted models the context no longer holds were deleted before they were saved.
        for (id, entry) in recorder.checkpoint where registrations[id] == nil {
            guard case .inserted = entry.state, let entity = container.schema.entity(named: id.entityName) else {
                recorder.checkpoint[id] = nil   // stored and forgotten, unchanged
                continue
            }
            group.append(UndoChange(model: entry.model, entity: entity, before: entry.state, after: .absent))
            recorder.checkpoint[id] = nil
        }
        undo = recorder
        return group
    }

    /// Whether two states are the same, values compared as a save compares them (a stored `nil`
    /// and an absent value are one).
    static func same(_ a: UndoState, _ b: UndoState, _ id: PersistentIdentifier) -> Bool {
        func unchanged(_ old: [String: SnapshotValue], _ new: [String: SnapshotValue]) -> Bool {
            DefaultSnapshot(persistentIdentifier: id, values: new).changedAttributes(from: old).isEmpty
        }
        switch (a, b) {
        case (.absent, .absent): return true
        case let (.inserted(old), .inserted(new)), let (.stored(old), .stored(new)), let (.deleted(old), .deleted(new)):
            return unchanged(old, new)
        default: return false
        }
    }

    /// After a fetch gave a model another save's values (`changed`, from `stored`): they are
    /// not this context's change, so the next group does not take them for one to undo. A change
    /// made here since the last group closed, to another attribute, stays in the next group.
    func takeStoredValuesIntoUndoCheckpoint(_ id: PersistentIdentifier, changed: [String], stored: [String: SnapshotValue]) {
        guard var recorder = undo, let entry = recorder.checkpoint[id], case .stored(var values) = entry.state else { return }
        for name in changed { values[name] = stored[name] ?? .null }
        recorder.checkpoint[id] = (entry.model, .stored(values))
        undo = recorder
    }

    /// After a save: what was inserted is stored, what was deleted is gone; not changes to undo.
    func refreshUndoCheckpoint() {
        guard var recorder = undo else { return }
        for id in Array(recorder.checkpoint.keys) {
            if let registration = registrations[id] {
                recorder.checkpoint[id] = (registration.model, state(of: registration))
            } else {
                recorder.checkpoint[id] = nil
            }
        }
        undo = recorder
    }

    /// A model whose insert is undone keeps its values (its to-one still names the related
    /// model), but is no longer a new model that refers to it: the next pass over the related
    /// model's referrers would insert it again (``insertRelatedModels(from:)``). So is a new
    /// model deleted before it was saved.
    func forgetAsReferrer(_ model: any PersistentModel, _ entity: Schema.Entity) {
        for relationship in entity.relationships where !relationship.isToMany {
            for member in entity.relationshipAccess[relationship.name]?.members(model) ?? [] {
                member.persistentBackingData.referrers[ObjectIdentifier(model)] = nil
            }
        }
    }

    /// Sets each model to its target state as pending changes, then its relationships to the
    /// models its target values name (fetched when the context does not hold them).
    ///
    /// A change of a model's values sets back (or again) only the attributes and relationships
    /// it changed: the others keep what they are now, such as another context's save that a
    /// fetch brought in since, which is not this context's to undo (the next save sends only
    /// what differs from the stored values).
    func apply(_ targets: [(UndoChange, UndoState)]) {
        var touched: [(UndoChange, [String: SnapshotValue], names: [String]?)] = []
        for (change, target) in targets {
            let id = change.model.persistentModelID
            let registration = registrations[id]
            let stored = registration.map { $0.baseline != nil } ?? false
            registrations.unsettle(id)
            switch target {
            case .absent:
                forgetAsReferrer(change.model, change.entity)
                if let registration, stored {
                    registration.state = .deleted
                    registration.deleteOrder = takeOrder()
                } else {
                    registrations[id] = nil
                }
            case .inserted(var values), .stored(var values):
                let names = change.changedNames
                if let names, let registration, var current = try? registration.currentValues() {
                    for name in names { current[name] = values[name] ?? .null }
                    values = current
                }
                try? change.model.assignStoredValues(values)
                if let registration {
                    registration.state = stored ? .persisted : .inserted
                } else {
                    registrations[id] = Registration.make(model: change.model, entity: change.entity, baseline: nil, state: .inserted, order: takeOrder())
                    deletedWhileNew[ObjectIdentifier(change.model)] = nil
                }
                touched.append((change, values, names))
            case .deleted(let values):
                try? change.model.assignStoredValues(values)
                if let registration, stored {
                    registration.state = .deleted
                    registration.deleteOrder = takeOrder()
                } else {
                    registrations[id] = nil
                }
            }
        }
        for (change, values, names) in touched {
            for relationship in change.entity.relationships where names?.contains(relationship.name) ?? true {
                guard let access = change.entity.relationshipAccess[relationship.name] else { continue }
                let members = relationship.identifiers(in: values).compactMap { id in registrations[id]?.model ?? (try? model(for: id)) ?? nil }
                access.setMembers(change.model, members)
            }
        }
        // The group holds both ends of each relationship it changed (it closed with inverses in
        // step), so the models are in step as set: a change made after is the one to keep.
        for (change, _, _) in touched {
            if let registration = registrations[change.model.persistentModelID] { noteRelationshipsInStep(registration) }
        }
        // The checkpoint is what the models are now, as the next group compares them: a model
        // stored again by undoing its saved delete is a new insert (`.inserted`), not the
        // `.stored` state the group recorded. Recording the target instead made the next save
        // see a change, close a group with it, and so end what could be redone.
        guard var recorder = undo else { return }
        for (change, _) in targets {
            let id = change.model.persistentModelID
            recorder.checkpoint[id] = registrations[id].map { ($0.model, state(of: $0)) }
        }
        undo = recorder
    }
}
