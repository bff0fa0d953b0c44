import Foundation

/// A context's side of the models it tracks: the identifiers of models changed since the context
/// last looked, appended by each model's ``ModelBacking`` on its first change after a settle and
/// drained by the context; and who the context is, which a backing tracked by it tells another
/// context that meets the model (``ModelOwner``).
final class TouchLog {
    private let identifiers = Locked<[PersistentIdentifier]>([])
    private let referred = Locked<[PersistentIdentifier]>([])
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

    /// The context's autosave, told of each change (``ModelContext/autosaveEnabled``).
    weak var autosave: AutosaveState?

    func append(_ identifier: PersistentIdentifier) {
        identifiers.withLock { $0.append(identifier) }
        autosave?.changeWasMade()
    }

    /// A model this context tracks gained a referrer that no context tracks (``ModelBacking``'s
    /// `noteReferrer`): the next ``ModelContext/processPendingChanges()`` inserts the referrer.
    func appendReferred(_ identifier: PersistentIdentifier) {
        referred.withLock { $0.append(identifier) }
        autosave?.changeWasMade()
    }

    /// The identifiers ``appendReferred(_:)`` logged since the last call.
    func drainReferred() -> [PersistentIdentifier] {
        referred.withLock { referred in
            defer { referred.removeAll() }
            return referred
        }
    }

    func drain() -> [PersistentIdentifier] {
        identifiers.withLock { identifiers in
            defer { identifiers.removeAll() }
            return identifiers
        }
    }
}
