import DataStores

// The sync models: what a replicator keeps in each synced store beside the app's models, saved in
// the same save as the data they describe. The replicator reads and writes them as snapshots (the
// classes give the schema their shape); the app lists them through `Replicator.models` and never
// needs to touch them. They are never synced themselves.

/// This store's identity as a replica: its replica ID, its hybrid logical clock and how far its
/// own saves are dated. One row per store (`id` "replica").
@Model public final class SyncReplicaState {
    /// Always `"replica"`: one row per store.
    public var id: String
    /// The replica ID, a UUID string made on first use; it names this replica in clocks and in the
    /// author of every transaction it pushes.
    public var replicaID: String
    /// The clock's high-water mark: milliseconds.
    public var clockMilliseconds: Int64
    /// The clock's high-water mark: counter.
    public var clockCounter: Int64
    /// The local transaction number up to which the store's own saves are dated (stamped).
    public var stampedThrough: Int64

    init(replicaID: String) {
        id = "replica"
        self.replicaID = replicaID
        clockMilliseconds = 0
        clockCounter = 0
        stampedThrough = 0
    }
}

/// The last transaction of one origin (a replica, or a remote store's own writer) applied to this
/// store: what makes applying exactly-once.
@Model public final class SyncAppliedOrigin {
    /// The origin: a replica ID, or the identifier of a store whose own (non-replicator) saves
    /// were pulled.
    public var id: String
    /// The origin's last transaction number applied here.
    public var lastTransaction: Int64

    init(origin: String, lastTransaction: Int64) {
        id = origin
        self.lastTransaction = lastTransaction
    }
}

/// How far this store has read a remote store's history.
@Model public final class SyncPullPosition {
    /// The remote store's `DataStore.identifier`.
    public var id: String
    /// The last remote transaction number read (applied or skipped).
    public var lastTransaction: Int64

    init(remote: String, lastTransaction: Int64) {
        id = remote
        self.lastTransaction = lastTransaction
    }
}

/// The clocks of one synced model: per attribute and relationship the clock of the value held and
/// a digest of it, per to-many member its clock, and the deletion's clock once deleted (kept:
/// tombstones are not garbage-collected).
@Model public final class SyncClockRecord {
    /// `<entity>/<primary key as canonical JSON>`.
    public var id: String
    /// The model's entity name.
    public var entityName: String
    /// The model's primary key, as canonical JSON of its snapshot value.
    public var primaryKey: String
    /// The clocks, as JSON (see the replicator's `ModelClocks`).
    public var clocks: String

    init(entityName: String, primaryKey: String, clocks: String) {
        id = entityName + "/" + primaryKey
        self.entityName = entityName
        self.primaryKey = primaryKey
        self.clocks = clocks
    }
}
