import DataStores
import Foundation

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
/// let local = try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(schema: schema, url: file)])
/// let replicator = try Replicator(local: local, remote: server)
/// let report = try await replicator.sync()
/// ```
///
/// One replicator per local store: two replicators (in one process or two) syncing the same
/// local store at once could each date the same save. Any number of replicas may share a remote:
/// a push holds the remote's exclusive access (`ExclusiveAccessProviding`) from its read to its
/// save.
///
/// The replicator's own saves carry history authors that begin with `StoreSync/`, which is how it
/// never sends them back: an app save under such an author is taken for one and not synced.
///
/// A local container whose store keeps inserts only (a `LogStore`) is a *push-only source*
/// (``isPushOnly``): ``sync()`` and ``push()`` send its records to the remote, each dated by the
/// transaction that inserted it, and ``pull()`` throws; nothing is ever written into the log.
public final class Replicator: Sendable {
    /// The models a synced container's schema must hold beside the app's own.
    public static var models: [any PersistentModel.Type] {
        [SyncReplicaState.self, SyncAppliedOrigin.self, SyncPullPosition.self, SyncClockRecord.self]
    }

    /// The app's own container.
    public let local: ModelContainer
    /// The shared container every replica syncs through.
    public let remote: ModelContainer
    /// How conflicts resolve, what is reported, and how retries back off.
    public let configuration: SyncConfiguration
    /// Whether the local store is a push-only source: a store whose history holds inserts only
    /// (a `LogStore`, whose history bridges to `DefaultHistoryTransaction`). Its records are
    /// pushed, never pulled into, and the replicator writes nothing into it: ``sync()`` and
    /// ``run()`` push only, and ``pull()`` throws ``SyncError/Code/unsupportedStore``.
    public let isPushOnly: Bool

    let localStore: SyncStore
    let remoteStore: SyncStore
    let remoteAccess: any ExclusiveAccessProviding
    /// The synced entities' parts, by entity name.
    let parts: [String: SyncedParts]
    /// One round at a time per replicator.
    private let roundLock = NSLock()

    /// Joins two containers.
    ///
    /// - Throws: ``SyncError`` with ``SyncError/Code/schemaMismatch`` when the two schemas differ
    ///   (entity names, attributes, versions), ``SyncError/Code/missingSyncModels`` when a side's
    ///   schema lacks ``models`` (a push-only local store need not list them: it holds no sync
    ///   state), ``SyncError/Code/historyUnavailable`` when a side keeps no
    ///   history, ``SyncError/Code/unsupportedStore`` when a container has more than one store, the
    ///   remote is a log store, or the remote's store cannot give exclusive access (`ExclusiveAccessProviding`). Nothing is
    ///   read or written before these checks pass.
    /// - Complexity: O(*e*) in the schemas' entities; reads no store.
    public init(local: ModelContainer, remote: ModelContainer, configuration: SyncConfiguration = SyncConfiguration()) throws {
        self.local = local
        self.remote = remote
        self.configuration = configuration
        localStore = try SyncStore(local, role: "local")
        remoteStore = try SyncStore(remote, role: "remote")
        guard localStore.identifier != remoteStore.identifier else {
            throw SyncError(.unsupportedStore, "The local and remote containers open the same store (\(localStore.identifier)); "
                + "a replicator syncs two different stores.")
        }
        guard !remoteStore.isPushOnlySource else {
            throw SyncError(.unsupportedStore,
                "The remote store (\(type(of: remoteStore.store))) keeps inserts only (a log store): it cannot take the updates, "
                + "deletions and clock records other replicas push. A log store can be a replicator's local side, a push-only "
                + "source; use a store with default history as the remote (PostgresStore, JSONStore, MemoryStore).")
        }
        isPushOnly = localStore.isPushOnlySource
        try SchemaCheck.check(local: localStore.schema, remote: remoteStore.schema, localHoldsSyncModels: !isPushOnly)
        guard let access = remoteStore.store as? any ExclusiveAccessProviding else {
            throw SyncError(.unsupportedStore,
                "The remote store (\(type(of: remoteStore.store))) cannot give one replica at a time the right to read and then save "
                + "(ExclusiveAccessProviding), so two replicas pushing at once could lose each other's clocks. Use a store that "
                + "conforms (PostgresStore, JSONStore, MemoryStore).")
        }
        remoteAccess = access
        let schema = localStore.schema
        parts = Dictionary(uniqueKeysWithValues: schema.entities.filter { !SyncStateRows.entityNames.contains($0.name) }
            .map { ($0.name, SyncedParts($0, in: schema)) })
    }

    /// One round: date the local side's new saves, pull what the remote saved since this
    /// replica's last pull, then push what the local side saved since its last push. For a
    /// push-only source (``isPushOnly``), a push only: see ``push()``.
    ///
    /// - Returns: what moved and what was resolved.
    /// - Throws: ``SyncError``, or the store's own error when a save or fetch fails; what was
    ///   saved before the failure stays saved and is not repeated by the next round.
    /// - Complexity: per transaction moved, one fetch by primary key per model it changed on each
    ///   side and one save; an expired position reads every synced row of the side (see
    ///   ``SyncReport/resynced``).
    @discardableResult
    public func sync() async throws -> SyncReport {
        if isPushOnly { return try await push() }
        return try round { round in
            try round.stampLocal()
            try round.checkLineage()
            try round.pull()
            try round.push()
        }
    }

    /// Dates the local side's new saves, then applies the remote's changes since this replica's
    /// last pull to the local side.
    /// - Throws: as ``sync()``; ``SyncError/Code/unsupportedStore`` for a push-only source
    ///   (``isPushOnly``), before anything is read or written.
    @discardableResult
    public func pull() async throws -> SyncReport {
        guard !isPushOnly else {
            throw SyncError(.unsupportedStore,
                "The local store (\(type(of: localStore.store))) keeps inserts only (a log store): it is a push-only source, "
                + "and a pull would bring updates, deletions and clock records it cannot hold. Nothing was read or written. "
                + "Call sync() or push() to send its records; pull into a replicator whose local store has default history.")
        }
        return try round { round in
            try round.stampLocal()
            try round.checkLineage()
            try round.pull()
        }
    }

    /// Dates the local side's new saves, then applies them to the remote.
    ///
    /// For a push-only source (``isPushOnly``): applies each of its transactions after this
    /// source's push position (kept in the remote) to the remote in one remote save, its records
    /// dated by that transaction's timestamp (every value of a record takes one clock: a record
    /// is never updated); nothing is dated or written locally. The source's replica ID is the
    /// log store's identifier.
    /// - Throws: as ``sync()``; for a push-only source, ``SyncError/Code/historyTokenExpired``
    ///   when the remote applied more of its transactions than it holds (restored from a backup
    ///   or copied), and ``SyncError/Code/unsupportedStore`` when its history holds an update or
    ///   a deletion; nothing of that transaction is applied.
    /// - Complexity: as ``sync()``; a push-only source reads all its records of each entity it
    ///   pushes once per round (a log finds a record by id only by reading them all).
    @discardableResult
    public func push() async throws -> SyncReport {
        if isPushOnly { return try round { try $0.pushInserts() } }
        return try round { round in
            try round.stampLocal()
            try round.checkLineage()
            try round.push()
        }
    }

    private func round(_ body: (inout SyncRound) throws -> Void) throws -> SyncReport {
        try roundLock.withLock {
            var round = SyncRound(replicator: self)
            try body(&round)
            return round.report
        }
    }
}
