import DataStores
import Foundation
import StoreSync

extension SyncBenchmark {
    /// The long-running mode: once the replicator's first round is done, `count` changes are
    /// saved locally (on this thread, not on the concurrency pool the replicator runs on); the
    /// rate is the changes over the time from the first save to the server's last replicated
    /// transaction (seen through the server's history updates, which LISTEN/NOTIFY wakes).
    /// Fails, rather than waits forever, when they have not all arrived after a generous bound.
    func longRunningRate(_ replicator: Replicator, remote shared: ModelContainer, source: ModelContainer) throws {
        let start = try shared.currentHistoryToken()
        let firstRound = DispatchSemaphore(value: 0)
        let rounds = Task.detached {
            var signalled = false
            for try await _ in replicator.run() where !signalled {
                signalled = true
                firstRound.signal()
            }
        }
        defer { rounds.cancel() }
        firstRound.wait()
        let count = count
        let bound = Duration.seconds(60) + .milliseconds(200) * count
        let arrival = OutcomeBox<ContinuousClock.Instant>()
        let arrived = DispatchSemaphore(value: 0)
        let measuring = Task.detached {
            do {
                var updates = shared.historyUpdates(after: start).makeAsyncIterator()
                var seen = 0
                while seen < count, let transaction = try await updates.next() {
                    // One server transaction "StoreSync/<origin>/<n>" per local transaction.
                    if transaction.author?.hasPrefix("StoreSync/") == true, transaction.author?.split(separator: "/").count ?? 0 >= 3 { seen += 1 }
                }
                guard seen == count else {
                    throw DataStoreError(.ioFailure, "long-running mode: \(seen) of \(count) changes reached the server within \(bound)")
                }
                arrival.set(.success(ContinuousClock.now))
            } catch {
                arrival.set(.failure(error))
            }
            arrived.signal()
        }
        let watchdog = Task.detached {
            try await Task.sleep(for: bound)
            measuring.cancel()
        }
        defer { watchdog.cancel() }
        let began = ContinuousClock.now
        try change(source, times: count)
        arrived.wait()
        let elapsed = try arrival.get() - began
        let rate = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        print(String(format: "  long-running mode: %d changes saved and pushed at %.0f changes/s", count, rate))
    }
}
