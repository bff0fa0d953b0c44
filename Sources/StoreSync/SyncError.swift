import DataStores

/// Why a ``Replicator`` could not start or finish a round.
public struct SyncError: CodedError {
    /// The kinds of failure a replicator reports.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The two containers' schemas differ; nothing moved.
        public static let schemaMismatch = Code(rawValue: "schemaMismatch")
        /// A container's schema lacks ``Replicator/models``; nothing moved.
        public static let missingSyncModels = Code(rawValue: "missingSyncModels")
        /// A side's store keeps no history at all.
        public static let historyUnavailable = Code(rawValue: "historyUnavailable")
        /// A side cannot take the role asked of it: a log store as the remote, or a pull into a
        /// log store (its history holds inserts only: it is a push-only source), a container with
        /// several stores, one store on both sides, or a remote that cannot give exclusive access.
        public static let unsupportedStore = Code(rawValue: "unsupportedStore")
        /// A history position saved by an earlier round no longer exists on its side.
        public static let historyTokenExpired = Code(rawValue: "historyTokenExpired")
        /// A sync model's row (clocks, positions) does not decode: written by another version of
        /// the replicator, or damaged.
        public static let corruptSyncState = Code(rawValue: "corruptSyncState")
        /// A clock reading that arrived from the other side is negative or more than a day ahead
        /// of this device's wall clock: the replica that made it has a wrong clock or a damaged
        /// clock record. Nothing of the transaction that carried it was applied; the message names
        /// the model and the reading.
        public static let clockOutOfRange = Code(rawValue: "clockOutOfRange")
        /// A feature this build does not provide.
        public static let unsupported = Code(rawValue: "unsupported")
    }

    /// What went wrong, to match on.
    public var code: Code
    /// What went wrong and what to do, for a person.
    public var message: String

    /// An error with a code to match on and a message a person can act on.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
