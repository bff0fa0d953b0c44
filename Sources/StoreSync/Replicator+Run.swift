import DataStores
import Foundation

extension Replicator {
    /// Syncs once, then again after every local save and every remote save by another replica or
    /// an app (a push-only source: after every local save only), until the task that iterates the
    /// stream is cancelled. Saves that arrive during a round coalesce into one more round. After
    /// an error that a retry can cure (an I/O failure, a lost connection: any error but a
    /// ``SyncError`` or a `DataStoreError` other than `ioFailure`), it waits
    /// ``SyncConfiguration/minimumRetryDelay``, doubling after each failure up to
    /// ``SyncConfiguration/maximumRetryDelay`` (a save on either side ends the wait early), and
    /// tries again.
    ///
    /// Saves are observed through `ModelContainer.historyUpdates(after:pollInterval:maximumPollInterval:)`:
    /// told by stores that tell of their saves (`SaveNotifying`, as PostgresStore does with
    /// `LISTEN`/`NOTIFY`), polled otherwise (every 10 ms after a save, backing off to 500 ms).
    ///
    /// - Returns: one report per round; the stream ends with an error that a retry cannot cure (a
    ///   schema mismatch, a damaged sync state), or when the task that iterates it is cancelled.
    public func run() -> AsyncThrowingStream<SyncReport, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                let wake = WakeSignal()
                // Both positions are read before the first round, so that a save made after run()
                // is called, before a watcher first runs, wakes a round (the round after the
                // first, when the first already read it).
                // A push-only source has nothing to pull: only its own saves wake a round.
                let watchers = [watch(local, from: try? local.currentHistoryToken(), wake: wake)]
                    + (isPushOnly ? [] : [watch(remote, from: try? remote.currentHistoryToken(), wake: wake)])
                defer { for watcher in watchers { watcher.cancel() } }
                var delay = configuration.minimumRetryDelay
                while !Task.isCancelled {
                    do {
                        continuation.yield(try await sync())
                        delay = configuration.minimumRetryDelay
                        await wake.wait(upTo: .seconds(3600))
                    } catch where Self.isRetryable(error) && !Task.isCancelled {
                        await wake.wait(upTo: delay)
                        delay = min(delay * 2, configuration.maximumRetryDelay)
                    } catch {
                        if !Task.isCancelled { continuation.finish(throwing: error) }
                        return
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether a retry can cure an error: not a replicator's refusal or a store's verdict on the
    /// data, which the next round would meet again.
    static func isRetryable(_ error: any Error) -> Bool {
        if error is SyncError || error is HistoryError { return false }
        if let error = error as? DataStoreError { return error.code == .ioFailure }
        return !(error is CancellationError)
    }

    /// Signals `wake` after each save of `container` that is news to this replica: not the
    /// replicator's own saves on the local side, not its bookkeeping nor its own pushes coming
    /// back on the remote (unless the remote merged models on a unique key in one).
    /// `start` is the position to watch from (`nil`: the current one, read when the watcher runs).
    private func watch(_ container: ModelContainer, from start: DefaultHistoryToken?, wake: WakeSignal) -> Task<Void, Never> {
        Task {
            var start = start
            while !Task.isCancelled {
                do {
                    // The round that follows a wake reads what came before.
                    let updates = container.historyUpdates(after: try start ?? container.currentHistoryToken())
                    start = nil
                    for try await transaction in updates where isNews(transaction, from: container) { wake.signal() }
                } catch {
                    start = nil
                    // History unreadable for now (an expired token, a lost connection): the next
                    // round finds out; watch again from the current position shortly.
                    wake.signal()
                    try? await Task.sleep(for: configuration.minimumRetryDelay)
                }
            }
        }
    }

    private func isNews(_ transaction: DefaultHistoryTransaction, from container: ModelContainer) -> Bool {
        guard SyncRound.isReplicatorAuthored(transaction) else { return true }
        guard container === remote, let applied = SyncRound.origin(of: transaction) else { return false }
        let own = try? SyncStateRows.replicaState(in: localStore)?.replicaID
        return applied.origin != own || applied.merged
    }
}
