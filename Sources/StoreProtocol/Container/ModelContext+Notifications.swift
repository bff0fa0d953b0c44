import Foundation

extension ModelContext {
    /// Posted (object: the context) before a ``ModelContext/save()`` sends anything to a store;
    /// SwiftData's `ModelContext.willSave`.
    public static let willSave = Notification.Name("ModelContext.willSave")
    /// Posted (object: the context) after a ``ModelContext/save()`` that changed something, with
    /// the saved identifiers under ``NotificationKey``; SwiftData's `ModelContext.didSave`.
    public static let didSave = Notification.Name("ModelContext.didSave")

    /// The keys of a ``didSave`` notification's `userInfo`, as SwiftData names them. Each value
    /// is a `[PersistentIdentifier]`.
    public enum NotificationKey: String, Sendable {
        /// The models the save inserted.
        case insertedIdentifiers
        /// The models the save updated.
        case updatedIdentifiers
        /// The models the save deleted.
        case deletedIdentifiers
    }

    /// What one save changed: the identifiers inserted, updated and deleted, each once, in the
    /// order the context sends them (inserts and updates in the order the models became known to
    /// it, deletes in the order they were made). An insert that a unique constraint made an update
    /// of a stored model with another identifier is under `updated`, with the stored model's.
    public struct SaveSummary: Sendable, Hashable {
        /// Models inserted by the save.
        public var inserted: [PersistentIdentifier]
        /// Models updated by the save (and stored models an insert collided with).
        public var updated: [PersistentIdentifier]
        /// Models deleted by the save.
        public var deleted: [PersistentIdentifier]

        /// A summary of these identifiers.
        public init(inserted: [PersistentIdentifier] = [], updated: [PersistentIdentifier] = [], deleted: [PersistentIdentifier] = []) {
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
        }

        /// Whether the save changed nothing.
        public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

        /// The `userInfo` of a ``ModelContext/didSave`` notification.
        public var userInfo: [String: [PersistentIdentifier]] {
            [NotificationKey.insertedIdentifiers.rawValue: inserted, NotificationKey.updatedIdentifiers.rawValue: updated,
             NotificationKey.deletedIdentifiers.rawValue: deleted]
        }
    }

    /// Each later save of this context that changes something, as it happens: an
    /// `AsyncSequence` for code that does not use `NotificationCenter`. The stream ends when the
    /// context is released; each call makes a stream of its own, buffering every save until read.
    public func didSaveSummaries() -> AsyncStream<SaveSummary> {
        let (stream, continuation) = AsyncStream<SaveSummary>.makeStream()
        saveObservers.append(continuation)
        return stream
    }

    func postWillSave() {
        NotificationCenter.default.post(name: Self.willSave, object: self)
    }

    func postDidSave(_ summary: SaveSummary) {
        guard !summary.isEmpty else { return }
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: summary.userInfo)
        for observer in saveObservers { observer.yield(summary) }
    }
}
