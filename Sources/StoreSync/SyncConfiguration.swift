import Foundation

/// How a ``Replicator`` resolves conflicts, reports its work and retries.
public struct SyncConfiguration: Sendable {
    /// Decides each conflict; the default is ``LastWriterWins``.
    public var resolver: any ConflictResolver
    /// Called with each resolution after the save that applied it.
    public var resolutionHandler: (@Sendable (SyncResolution) -> Void)?
    /// Called as a round enters each phase: for progress and for tests that stop a round inside one.
    public var phaseHandler: (@Sendable (SyncPhase) -> Void)?
    /// At most this many source transactions are read and applied per destination save.
    public var batchSize: Int
    /// The first wait before a retry in ``Replicator/run()``; it doubles after each failure.
    public var minimumRetryDelay: Duration
    /// The longest wait between retries in ``Replicator/run()``.
    public var maximumRetryDelay: Duration
    /// The wall clock the replica's hybrid logical clock reads, in milliseconds since 1970: tests
    /// replace it to date edits at will.
    var wallClock: @Sendable () -> Int64 = { HybridLogicalTimestamp.milliseconds(of: Date()) }

    /// A configuration with last-writer-wins resolution, batches of 100 transactions and retries
    /// from 100 ms up to 30 s.
    public init(
        resolver: any ConflictResolver = LastWriterWins(),
        resolutionHandler: (@Sendable (SyncResolution) -> Void)? = nil,
        phaseHandler: (@Sendable (SyncPhase) -> Void)? = nil,
        batchSize: Int = 100,
        minimumRetryDelay: Duration = .milliseconds(100),
        maximumRetryDelay: Duration = .seconds(30)
    ) {
        self.resolver = resolver
        self.resolutionHandler = resolutionHandler
        self.phaseHandler = phaseHandler
        self.batchSize = batchSize
        self.minimumRetryDelay = minimumRetryDelay
        self.maximumRetryDelay = maximumRetryDelay
    }
}
