import Foundation

/// A transaction as a store keeps it: untyped (entity and attribute names), Codable, so a
/// backend can persist it and turn it back into a ``DefaultHistoryTransaction`` with its schema.
public struct HistoryRecord: Codable, Sendable, Hashable {
    public var transactionNumber: Int64
    public var author: String?
    public var timestamp: Date
    public var bundleIdentifier: String
    public var processIdentifier: String
    public var changes: [Change]

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
        public enum Kind: String, Codable, Sendable { case insert, update, delete }

        public var kind: Kind
        public var entityName: String
        public var primaryKey: SnapshotValue
        /// For updates: the names of the attributes that changed.
        public var updatedAttributes: [String]?
        /// For deletes: the preserved attributes' values.
        public var tombstone: [String: SnapshotValue]?

        public init(kind: Kind, entityName: String, primaryKey: SnapshotValue,
                    updatedAttributes: [String]? = nil, tombstone: [String: SnapshotValue]? = nil) {
            self.kind = kind
            self.entityName = entityName
            self.primaryKey = primaryKey
            self.updatedAttributes = updatedAttributes
            self.tombstone = tombstone
        }

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
