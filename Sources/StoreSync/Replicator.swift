import DataStores

/// Replicates two containers through their history: what one side saved since the last round is
/// applied to the other, in both directions, exactly once.
///
/// A replicator joins a *local* container (the app's own store: JSON, memory, or any backend
/// with history) and a *remote* one (a server store such as PostgresStore, shared by every
/// device). Each side's schema must include ``Replicator/models`` beside the app's models: the
/// positions, the applied origins and the per-attribute clocks live there, saved in the same
/// save as the data they describe, so a crash at any instant neither loses nor repeats a change.
///
/// ```swift
/// let schema = Schema([Trip.self, BucketListItem.self] + Replicator.models)
/// let local = try ModelContainer(for: schema, configurations: JSONStoreConfiguration(schema: schema, url: file))
/// let replicator = try Replicator(local: local, remote: server)
/// let report = try await replicator.sync()
/// ```
public final class Replicator: Sendable {
    /// The models a synced container's schema must hold beside the app's own.
    public static var models: [any PersistentModel.Type] { [] }

    /// The app's own container.
    public let local: ModelContainer
    /// The shared container every replica syncs through.
    public let remote: ModelContainer
    /// How conflicts resolve, what is reported, and how retries back off.
    public let configuration: SyncConfiguration

    /// Joins two containers.
    ///
    /// - Throws: ``SyncError`` with ``SyncError/Code/schemaMismatch`` when the two schemas differ
    ///   (entity names, attributes, versions), ``SyncError/Code/missingSyncModels`` when a side's
    ///   schema lacks ``models``, ``SyncError/Code/historyUnavailable`` when a side keeps no
    ///   history. Nothing is read or written before these checks pass.
    public init(local: ModelContainer, remote: ModelContainer, configuration: SyncConfiguration = SyncConfiguration()) throws {
        self.local = local
        self.remote = remote
        self.configuration = configuration
        throw SyncError(.unsupported, "not implemented yet")
    }

    /// One round: pull what the remote saved since this replica's last pull, then push what the
    /// local side saved since its last push.
    ///
    /// - Returns: what moved and what was resolved.
    /// - Throws: ``SyncError``, or the store's own error when a save or fetch fails; what was
    ///   saved before the failure stays saved and is not repeated by the next round.
    @discardableResult
    public func sync() async throws -> SyncReport {
        throw SyncError(.unsupported, "not implemented yet")
    }

    /// Applies the remote's changes since this replica's last pull to the local side.
    @discardableResult
    public func pull() async throws -> SyncReport {
        throw SyncError(.unsupported, "not implemented yet")
    }

    /// Applies the local side's changes since its last push to the remote.
    @discardableResult
    public func push() async throws -> SyncReport {
        throw SyncError(.unsupported, "not implemented yet")
    }

    /// Syncs after every local save and every remote save until the task is cancelled, retrying
    /// with back-off (``SyncConfiguration/minimumRetryDelay`` doubling to
    /// ``SyncConfiguration/maximumRetryDelay``) after an error that a retry can cure.
    ///
    /// - Returns: one report per round; the stream ends with an error that a retry cannot cure
    ///   (a schema mismatch), or when the task that iterates it is cancelled.
    public func run() -> AsyncThrowingStream<SyncReport, any Error> {
        AsyncThrowingStream { $0.finish(throwing: SyncError(.unsupported, "not implemented yet")) }
    }
}
