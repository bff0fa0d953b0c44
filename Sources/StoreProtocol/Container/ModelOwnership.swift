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
/// An entry is keyed by the model's address. While a context tracks the model it holds it, so
/// the address is its own; the context releases the entry whenever it lets the model go
/// (``RegistrationTable``). A deleted model's entry holds the model weakly instead (no context
/// holds it any more, and its address may be reused once it is gone); such entries are dropped
/// when the table has doubled since it last dropped them. Tracking costs no weak reference,
/// which would give every registered model a side-table allocation.
/// - Complexity: O(1) amortized per registration, under one process-wide lock.
enum ModelOwnership {
    /// The context that tracks a model, or the container whose store it was deleted from.
    struct Owner: @unchecked Sendable {
        // @unchecked: `deleted` is only compared by identity; a weak load is thread-safe.
        /// The tracking context's ``ModelContext/editingID``; `nil` once the model was deleted
        /// and saved.
        var context: UUID?
        /// The model, once deleted and saved: held weakly, to tell it from a later object at
        /// its address.
        weak var deleted: AnyObject?
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
            owners = owners.filter { $0.value.context != nil || $0.value.deleted != nil }
            countAfterPruning = owners.count
        }
    }

    private static let table = Locked(Table())

    /// Records that `context` tracks `model`.
    static func track(_ model: AnyObject, by context: UUID, author: String?, in container: ModelContainer) {
        table.withLock { table in
            table.owners[ObjectIdentifier(model)] = Owner(context: context, author: author, container: container)
            table.pruneIfGrown()
        }
    }

    /// Records that `context` no longer tracks `model`; with `deleted`, that the model was deleted
    /// from the container's store, so no context may store it through a relationship again.
    static func release(_ model: AnyObject, by context: UUID, deleted: Bool = false) {
        table.withLock { table in
            let key = ObjectIdentifier(model)
            guard let owner = table.owners[key], owner.context == context else { return }
            if deleted {
                table.owners[key]?.context = nil
                table.owners[key]?.deleted = model
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
                if let owner = table.owners[key], owner.context == context { table.owners[key] = nil }
            }
        }
    }

    /// Who tracks `model`, or deleted it; `nil` for a model no context has met (a new one) or
    /// that every context that tracked it let go.
    static func owner(of model: AnyObject) -> Owner? {
        table.withLock { table in
            guard let owner = table.owners[ObjectIdentifier(model)], owner.context != nil || owner.deleted === model else { return nil }
            return owner
        }
    }
}
