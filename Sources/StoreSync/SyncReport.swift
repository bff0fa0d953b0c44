/// What one round (or one direction of it) moved.
public struct SyncReport: Sendable, Equatable {
    /// Local transactions applied to the remote.
    public var pushedTransactions = 0
    /// Remote transactions applied to the local side.
    public var pulledTransactions = 0
    /// Models those transactions (or a resync) changed on the destination: inserted, updated or
    /// deleted there, each model once per destination save (a save applies a batch of up to
    /// ``SyncConfiguration/batchSize`` source transactions). A change the destination already
    /// held counts nothing: a change travels with the model as it is now, so when one model was
    /// saved three times before a round, it counts once when the three travel in one save, and a
    /// later save that brings the same value again counts nothing.
    public var appliedChanges = 0
    /// Transactions skipped because this replica wrote them or had already applied them.
    public var skippedTransactions = 0
    /// Conflicts resolved, each also passed to ``SyncConfiguration/resolutionHandler``.
    public var resolutions = 0
    /// Whether a side's history no longer reached back to the saved position, so that the
    /// entities it covered were compared in full instead (see ``SyncError/Code/historyTokenExpired``).
    public var resynced = false

    /// An empty report: nothing moved.
    public init() {}
}
