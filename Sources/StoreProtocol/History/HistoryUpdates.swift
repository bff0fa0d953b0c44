import Foundation

extension ModelContainer {
    /// New transactions as they are saved, by this process or another (JSON and log stores read
    /// each other's files), after `token`, or from now when `token` is `nil`.
    ///
    /// The stream polls history: at `pollInterval` while transactions arrive, backing off to
    /// `maximumPollInterval` while none do (Linux offers no change notification across processes
    /// for these files without extra machinery). Cancelling the consuming task, or dropping the
    /// stream, ends it promptly; an error reading history (an expired token) ends it with that error.
    public func historyUpdates(
        after token: DefaultHistoryToken? = nil,
        pollInterval: Duration = .milliseconds(10),
        maximumPollInterval: Duration = .milliseconds(500)
    ) -> AsyncThrowingStream<DefaultHistoryTransaction, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var position = try token ?? currentHistoryToken()
                    var interval = pollInterval
                    while !Task.isCancelled {
                        let new = try fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: position))
                        if let last = new.last {
                            for transaction in new { continuation.yield(transaction) }
                            position = last.token
                            interval = pollInterval
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
}
