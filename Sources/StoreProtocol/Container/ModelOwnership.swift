import Foundation

/// Which context tracks each model instance in this process, and which instances were deleted
/// and saved: what a context asks when a relationship leads it to a model it does not hold.
///
/// A model is a plain object that does not know its context, so without this table a context
/// takes every model it meets through a relationship for a new one and inserts it: a model of
/// another container would be copied into this one's store (and stay tracked by both contexts),
/// another context's instance would be tracked twice, and a deleted model would be stored again.
/// With it, ``ModelContext/processPendingChanges()`` refuses them
/// (``ModelContextError/Code/modelOfAnotherContext``, ``ModelContextError/Code/deletedModel``).
///
/// Entries hold their model weakly: an entry whose model is gone is stale (its address may be
/// reused) and is dropped when the table has doubled since it last dropped them.
/// - Complexity: O(1) amortized per registration, under one process-wide lock.
enum ModelOwnership {
    /// The context that tracks a model, or the container whose store it was deleted from.
    struct Owner: @unchecked Sendable {
        // @unchecked: `model` is only compared by identity; a weak load is thread-safe.
        weak var model: AnyObject?
        /// The tracking context's ``ModelContext/editingID``; `nil` once the model was deleted
        /// and saved.
        var context: UUID?
        /// The author the context had when it took the model, for messages.
        var author: String?
        weak var container: ModelContainer?

        /// How a message names the context.
        var contextDescription: String {
            "the ModelContext \(context.map { "\($0)" } ?? "?")" + (author.map { " (author '\($0)')" } ?? "")
        }
    }

    private struct Table: Sendable {
        var owners: [ObjectIdentifier: Owner] = [:]
        var countAfterPruning = 0

        mutating func pruneIfGrown() {
            guard owners.count >= 2 * max(countAfterPruning, 1_024) else { return }
            owners = owners.filter { $0.value.model != nil }
            countAfterPruning = owners.count
        }
    }

    private static let table = Locked(Table())

    /// Records that `context` tracks `model`.
    static func track(_ model: AnyObject, by context: UUID, author: String?, in container: ModelContainer) {
        table.withLock { table in
            table.owners[ObjectIdentifier(model)] = Owner(model: model, context: context, author: author, container: container)
            table.pruneIfGrown()
        }
    }

    /// Records that `context` no longer tracks `model`; with `deleted`, that the model was deleted
    /// from the container's store, so no context may store it through a relationship again.
    static func release(_ model: AnyObject, by context: UUID, deleted: Bool = false) {
        table.withLock { table in
            let key = ObjectIdentifier(model)
            guard let owner = table.owners[key], owner.model === model, owner.context == context else { return }
            if deleted {
                table.owners[key]?.context = nil
            } else {
                table.owners[key] = nil
            }
        }
    }

    /// Records that none of `models` is tracked by `context` any more (the context is gone).
    static func releaseAll(_ models: [AnyObject], by context: UUID) {
        table.withLock { table in
            for model in models {
                let key = ObjectIdentifier(model)
                if let owner = table.owners[key], owner.model === model, owner.context == context { table.owners[key] = nil }
            }
        }
    }

    /// Who tracks `model`, or deleted it; `nil` for a model no context has met (a new one) or
    /// that every context that tracked it let go.
    static func owner(of model: AnyObject) -> Owner? {
        table.withLock { table in
            guard let owner = table.owners[ObjectIdentifier(model)], owner.model === model else { return nil }
            return owner
        }
    }
}
