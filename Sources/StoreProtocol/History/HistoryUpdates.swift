import Foundation

extension ModelContainer {
    /// New transactions as they are saved, by this process or another (JSON and log stores read
    /// each other's files), after `token`, or from now when `token` is `nil`.
    ///
    /// When every store with history tells of its saves (``SaveNotifying``, as PostgresStore does
    /// with `LISTEN`/`NOTIFY`), the stream reads history when told, and at `maximumPollInterval`
    /// in case a notification was lost. Otherwise it polls: at `pollInterval` while transactions
    /// arrive, backing off to `maximumPollInterval` while none do (Linux offers no change
    /// notification across processes for the JSON and log stores' files without extra
    /// machinery). Cancelling the consuming task, or dropping the stream, ends it promptly; an
    /// error reading history (an expired token) ends it with that error.
    public func historyUpdates(
        after token: DefaultHistoryToken? = nil,
        pollInterval: Duration = .milliseconds(10),
        maximumPollInterval: Duration = .milliseconds(500)
    ) -> AsyncThrowingStream<DefaultHistoryTransaction, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                // Observing starts before the first read, so that a save between a read and the
                // wait after it leaves a pending wake.
                let wake = WakeSignal()
                let observers = saveObservers { wake.signal() }
                defer { for observer in observers { observer.cancel() } }
                do {
                    var position = try token ?? currentHistoryToken()
                    var interval = pollInterval
                    while !Task.isCancelled {
                        let new = try fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: position))
                        if let last = new.last {
                            for transaction in new { continuation.yield(transaction) }
                            position = last.token
                            interval = pollInterval
                        } else if !observers.isEmpty {
                            await wake.wait(upTo: maximumPollInterval)
                        } else {
                            try await Task.sleep(for: interval)
                            interval = min(interval * 2, maximumPollInterval)
                        }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// An observation of every store with history, calling `handler` after each save; empty when
    /// one of them cannot tell of its saves (the stream then polls them all).
    private func saveObservers(_ handler: @escaping @Sendable () -> Void) -> [any SaveObservation] {
        let historyStores = stores.filter { $0 is any HistoryProviding }
        let notifying = historyStores.compactMap { $0 as? any SaveNotifying }
        guard !notifying.isEmpty, notifying.count == historyStores.count else { return [] }
        var observers: [any SaveObservation] = []
        for store in notifying {
            do {
                observers.append(try store.observeSaves(handler))
            } catch {
                for observer in observers { observer.cancel() }
                return []
            }
        }
        return observers
    }
}
