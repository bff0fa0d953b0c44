import Foundation

/// Tracks models and saves their changes: SwiftData's `ModelContext`.
///
/// A context keeps one instance per identifier (its identity map). Each model tells the context
/// itself which of its properties were set (its ``ModelBacking``): a save encodes only the models
/// set since the context last saw them hold their stored values, and compares only the
/// properties set. At each ``save()``, a stored model that is unchanged and that nothing outside
/// the context holds any more is forgotten. So ``hasChanges`` and ``save()`` cost the models
/// changed, not every model the context ever fetched.
///
/// Not Sendable, like SwiftData's: make one context per task on a shared ``ModelContainer``.
public final class ModelContext {
    /// The container whose stores this context reads and writes.
    public let container: ModelContainer
    /// Recorded as the author of every history transaction this context saves.
    public var author: String? {
        didSet { registrations.author = author }
    }

    let editingID: UUID
    var registrations: RegistrationTable
    /// How many models the last pass over every registration left (``forgetModelsNoOneHolds()``).
    var countAfterFullSweep = 0
    /// How many models the last ``save()`` encoded (inserted and possibly changed ones): what
    /// the tests read to check that a save costs the changes, not the models held.
    var modelsEncodedByLastSave = 0
    /// The models the last save sent or found unchanged: once saved, a model is settled,
    /// and the next save looks at these to forget those let go since (``forgetModelsNoOneHolds()``).
    var lookedAtByLastSave: [Registration] = []
    var nextOrder = 0
    /// Models given stored values whose relationships are not set yet
    /// (``resolvePendingRelationships()``).
    var pendingResolution: [Registration] = []
    /// The streams of ``didSaveSummaries()``.
    var saveObservers: [AsyncStream<SaveSummary>.Continuation] = []
    /// The undo manager and its checkpoint, when ``undoManager`` is set.
    var undo: UndoRecorder?
    /// Inserted models whose types the schema does not hold, in the order inserted: pending
    /// inserts (``ModelContext/hasChanges``, ``ModelContext/insertedModelsArray``) that `save()`
    /// throws for, until deleted or rolled back.
    var unknownInserts: [any PersistentModel] = []
    /// Models inserted while the context held another instance with their id, in the order
    /// inserted (not registered): `save()` gives the held instances their values (an upsert).
    var secondInstances: [Registration] = []
    /// Models of another container inserted or deleted here; `save()` throws for them.
    var foreignModels: [ModelContextError] = []
    /// New models deleted before a save, by instance: a save's walk over related models does not
    /// insert them again when another model's to-many still holds them, and takes them out of it
    /// (``insertRelatedModels(from:)``). Emptied by each save and by ``rollback()``.
    var deletedWhileNew: [ObjectIdentifier: WeakModel] = [:]
    /// Whether and when the context saves by itself (``autosaveEnabled``).
    let autosave = AutosaveState()

    /// A context on `container`'s stores, holding no model yet. Cheap: make one per task.
    public init(_ container: ModelContainer) {
        self.container = container
        editingID = EditingState.makeID()
        registrations = RegistrationTable(context: editingID, container: container)
        registrations.touches.owningContext = self
    }

    deinit {
        for observer in saveObservers { observer.finish() }
        registrations.releaseAll()
    }

    var editingState: EditingState { EditingState(id: editingID, author: author) }

    func takeOrder() -> Int {
        nextOrder += 1
        return nextOrder
    }
}

@available(*, unavailable, message: "A ModelContext belongs to one task; make one per task from a shared ModelContainer.")
extension ModelContext: Sendable {}
