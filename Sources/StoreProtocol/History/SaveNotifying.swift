/// A store that says when its history may have grown, after each committed save by this process
/// or another, so that ``ModelContainer/historyUpdates(after:pollInterval:maximumPollInterval:)``
/// wakes on that instead of polling.
///
/// Optional: the container polls a store without it. PostgresStore adopts it with
/// `LISTEN`/`NOTIFY`. A store whose notifications can be lost (a connection that breaks) is
/// still read at the stream's `maximumPollInterval`, so a lost notification delays an update
/// and never loses it.
public protocol SaveNotifying {
    /// What ``observeSaves(_:)`` returns.
    associatedtype SaveObserver: SaveObservation

    /// Calls `handler` after each committed save of the store, by any process, on any thread.
    /// The handler must return promptly and must not call the store. The observation lasts until
    /// the returned observer's ``SaveObservation/cancel()``.
    /// - Throws: What the store throws when it cannot observe (the container then polls).
    func observeSaves(_ handler: @escaping @Sendable () -> Void) throws -> SaveObserver
}

/// An observation of a store's saves (``SaveNotifying/observeSaves(_:)``).
public protocol SaveObservation: Sendable {
    /// Stops the observation and releases what it holds (a connection, a file watch).
    func cancel()
}
