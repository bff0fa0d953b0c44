import Foundation

/// The context that tracks a model, or the container whose store it was deleted from: what a
/// context asks a model's ``ModelBacking`` when a relationship (or an insert) leads it to a model
/// it does not hold.
///
/// Without it, a context would take every model it meets through a relationship for a new one
/// and insert it: a model of another container would be copied into this one's store (and stay
/// tracked by both contexts), another context's instance would be tracked twice, and a deleted
/// model would be stored again. With it, ``ModelContext/processPendingChanges()`` refuses them
/// (``ModelContextError/Code/modelOfAnotherContext``, ``ModelContextError/Code/deletedModel``).
///
/// The backing knows it: the context tracking the model holds it and is its ``TouchLog``'s
/// (held weakly by the backing, so a context that goes away stops owning its models), and a
/// save that deletes a model marks its backing deleted until a context tracks it again.
/// - Complexity: O(1), no lock: a model and its backing belong to one isolation.
struct ModelOwner {
    /// The tracking context's ``ModelContext/editingID``; `nil` once the model was deleted and
    /// saved.
    var context: UUID?
    /// The author the tracking context has, for messages.
    var author: String?
    /// The container of the tracking context, or the one the model was deleted from.
    weak var container: ModelContainer?

    /// How a message names the context.
    var contextDescription: String {
        "the ModelContext \(context.map { "\($0)" } ?? "?")" + (author.map { " (author '\($0)')" } ?? "")
    }

    /// Who tracks `model`, or deleted it; `nil` for a model no context has met (a new one) or
    /// that every context that tracked it let go.
    static func of(_ model: any PersistentModel) -> ModelOwner? {
        let backing = model.persistentBackingData
        if let log = backing.tracker {
            return ModelOwner(context: log.context, author: log.author, container: log.container)
        }
        if let deletion = backing.deletion {
            return ModelOwner(context: nil, author: nil, container: deletion.container)
        }
        return nil
    }
}

/// That a model was deleted from a container's store by a save.
struct ModelDeletion {
    /// The container, held weakly: it may close before the model is let go.
    weak var container: ModelContainer?
}
