import Foundation

/// `enumerate`, and the check it makes after each batch that the block left no change behind.
extension ModelContext {
    /// Calls `block` with each selected model, in batches of `batchSize`.
    ///
    /// The models are the ones the descriptor selected when the enumeration began: models the
    /// block inserts are not visited. This context keeps fetched models in its identity map, so
    /// batching bounds how often the mutation check runs, not memory.
    ///
    /// - Parameters:
    ///   - descriptor: The models to visit, in its order.
    ///   - batchSize: How many models are visited between two mutation checks.
    ///   - allowEscapingMutations: When `false` (the default), throws
    ///     ``ModelContextError/Code/mutationDuringEnumeration`` if, after a batch, the context's
    ///     unsaved changes are not the ones it had when the enumeration began: an insert, a
    ///     delete or a changed value that the block made and did not save. Changes made before
    ///     the enumeration may stay unsaved.
    ///   - block: Called with each model.
    /// - Throws: What the fetch throws, what `block` throws, and
    ///   ``ModelContextError/Code/mutationDuringEnumeration``.
    /// - Complexity: Each check encodes the models with unsaved changes, O(*c*) for *c* of them.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5_000, allowEscapingMutations: Bool = false,
        _ block: (T) throws -> Void
    ) throws {
        let before = allowEscapingMutations ? nil : try unsavedChanges()
        let models = try fetch(descriptor)
        var start = models.startIndex
        while start < models.endIndex {
            let end = min(models.endIndex, start + max(1, batchSize))
            for model in models[start..<end] { try block(model) }
            if let before, try unsavedChanges() != before {
                throw ModelContextError(.mutationDuringEnumeration,
                    "Models were changed while enumerating \(T.self) without allowEscapingMutations; "
                    + "save inside the block or pass allowEscapingMutations: true.")
            }
            start = end
        }
    }

    /// The context's unsaved changes: each model with one, in its state and with its values.
    /// - Complexity: O(*c*) encodes for the *c* models that may have changed.
    private func unsavedChanges() throws -> UnsavedChanges {
        var changes = UnsavedChanges(secondInstances: secondInstances.count)
        for registration in registrations.mayHaveChanged(inOrder: false) where try registration.isDirty() {
            changes.models[ObjectIdentifier(registration)] = (registration.state, try registration.currentValues())
        }
        return changes
    }
}

/// What ``ModelContext/enumerate(_:batchSize:allowEscapingMutations:_:)`` compares after each
/// batch with what it read before the first.
private struct UnsavedChanges: Equatable {
    /// The models with unsaved changes, by registration: an insert, a delete or a change.
    var models: [ObjectIdentifier: (state: ModelContext.Registration.State, values: [String: SnapshotValue])] = [:]
    /// Second instances inserted for stored models (upserts the save makes).
    var secondInstances: Int

    init(secondInstances: Int) { self.secondInstances = secondInstances }

    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.secondInstances == rhs.secondInstances, lhs.models.count == rhs.models.count else { return false }
        return lhs.models.allSatisfy { key, change in
            guard let other = rhs.models[key] else { return false }
            return change.state == other.state && SnapshotValue.object(change.values).isIdentical(to: .object(other.values))
        }
    }
}
