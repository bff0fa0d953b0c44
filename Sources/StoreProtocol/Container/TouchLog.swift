import Foundation

/// A context's side of the models it tracks: the identifiers of models changed since the context
/// last looked, appended by each model's ``ModelBacking`` on its first change after a settle and
/// drained by the context; and who the context is, which a backing tracked by it tells another
/// context that meets the model (``ModelOwner``).
final class TouchLog {
    /// What the log holds, behind one lock: each context makes a log, and each lock is three
    /// allocations (the `Locked`, its `NSLock` and the mutex) and a mutex to set up and tear down.
    private struct Pending: Sendable {
        var identifiers: [PersistentIdentifier] = []
        var referred: [PersistentIdentifier] = []
    }

    private let pending = Locked(Pending())
    /// The context's ``ModelContext/editingID``.
    let context: UUID
    /// The context's author, for messages.
    var author: String?
    /// The container of the context.
    private(set) weak var container: ModelContainer?

    init(context: UUID, container: ModelContainer) {
        self.context = context
        self.container = container
    }

    /// The context, which inserts the new models a relationship of a model it tracks comes to
    /// hold (``ModelContext/insertNewlyRelated(_:)``). Weak: the context holds its log.
    weak var owningContext: ModelContext?

    /// The context's autosave, told of each change (``ModelContext/autosaveEnabled``).
    weak var autosave: AutosaveState?

    func append(_ identifier: PersistentIdentifier) {
        pending.withLock { $0.identifiers.append(identifier) }
        autosave?.changeWasMade()
    }

    /// A model this context tracks gained a referrer that no context tracks (``ModelBacking``'s
    /// `noteReferrer`): the next ``ModelContext/processPendingChanges()`` inserts the referrer.
    func appendReferred(_ identifier: PersistentIdentifier) {
        pending.withLock { $0.referred.append(identifier) }
        autosave?.changeWasMade()
    }

    /// The identifiers ``appendReferred(_:)`` logged since the last call.
    func drainReferred() -> [PersistentIdentifier] {
        pending.withLock { pending in
            defer { pending.referred.removeAll() }
            return pending.referred
        }
    }

    func drain() -> [PersistentIdentifier] {
        pending.withLock { pending in
            defer { pending.identifiers.removeAll() }
            return pending.identifiers
        }
    }
}
