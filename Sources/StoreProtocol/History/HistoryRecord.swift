import Foundation

/// A transaction as a store keeps it: untyped (entity and attribute names), Codable, so a
/// backend can persist it and turn it back into a ``DefaultHistoryTransaction`` with its schema.
public struct HistoryRecord: Codable, Sendable, Hashable {
    /// The store's number for the transaction, strictly increasing: the typed transaction's
    /// ``HistoryTransaction/transactionIdentifier`` and its token's position.
    public var transactionNumber: Int64
    /// The ``ModelContext/author`` of the context that saved.
    public var author: String?
    /// When the store recorded the transaction.
    public var timestamp: Date
    /// The saving process's name.
    public var bundleIdentifier: String
    /// The saving process's id.
    public var processIdentifier: String
    /// The changes in the order they were made: inserts, then updates, then deletes of the save.
    public var changes: [Change]

    /// Makes a record; the process fields default to this process's ``ProcessIdentity``.
    public init(
        transactionNumber: Int64, author: String?, timestamp: Date,
        bundleIdentifier: String = ProcessIdentity.bundleIdentifier,
        processIdentifier: String = ProcessIdentity.processIdentifier, changes: [Change]
    ) {
        self.transactionNumber = transactionNumber
        self.author = author
        self.timestamp = timestamp
        self.bundleIdentifier = bundleIdentifier
        self.processIdentifier = processIdentifier
        self.changes = changes
    }

    /// One change: what happened to which model.
    public struct Change: Codable, Sendable, Hashable {
        /// What happened to the model.
        public enum Kind: String, Codable, Sendable {
            /// The model was inserted.
            case insert
            /// Attributes of the stored model changed.
            case update
            /// The model was deleted.
            case delete
        }

        /// Whether the model was inserted, updated or deleted.
        public var kind: Kind
        /// The changed model's entity name (``PersistentModel/entityName``).
        public var entityName: String
        /// The changed model's `id`, encoded (``PersistentIdentifier/primaryKey``).
        public var primaryKey: SnapshotValue
        /// For updates: the names of the attributes that changed.
        public var updatedAttributes: [String]?
        /// For deletes: the preserved attributes' values.
        public var tombstone: [String: SnapshotValue]?

        /// Makes a change; give `updatedAttributes` for an update and `tombstone` for a delete.
        public init(kind: Kind, entityName: String, primaryKey: SnapshotValue,
                    updatedAttributes: [String]? = nil, tombstone: [String: SnapshotValue]? = nil) {
            self.kind = kind
            self.entityName = entityName
            self.primaryKey = primaryKey
            self.updatedAttributes = updatedAttributes
            self.tombstone = tombstone
        }

        /// The changed model's identifier, from ``entityName`` and ``primaryKey``.
        public var persistentIdentifier: PersistentIdentifier {
            PersistentIdentifier(entityName: entityName, primaryKey: primaryKey)
        }
    }
}

/// Who is saving: recorded on every transaction.
public enum ProcessIdentity {
    /// The process name.
    public static let bundleIdentifier = ProcessInfo.processInfo.processName
    /// The process id.
    public static let processIdentifier = String(ProcessInfo.processInfo.processIdentifier)
}
