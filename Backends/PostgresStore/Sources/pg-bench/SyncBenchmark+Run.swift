import DataStores
import Foundation
import StoreSync

extension SyncBenchmark {
    /// The long-running mode: once the replicator's first round is done, `count` changes are
    /// saved locally (on this thread, not on the concurrency pool the replicator runs on); the
    /// rate is the changes over the time from the first save to the server's transaction that
    /// applied the last of them (seen through the server's history updates, which LISTEN/NOTIFY
    /// wakes; a server transaction "StoreSync/<origin>/<first>-<last>" applies the local
    /// transactions up to `last`). Fails, rather than waits forever, when they have not all
    /// arrived after a generous bound.
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
        let arrivals = ArrivalLog()
        let measuring = Task.detached {
            do {
                for try await transaction in shared.historyUpdates(after: start) {
                    if let last = Self.lastAppliedTransaction(transaction.author) { arrivals.record(last) }
                }
            } catch {
                arrivals.fail(error)
            }
        }
        defer { measuring.cancel() }
        let began = ContinuousClock.now
        try change(source, times: count)
        // The local transaction number of the last change (stamps and positions may follow it).
        let target = try source.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            .last { !($0.author ?? "").hasPrefix("StoreSync") }?.transactionIdentifier ?? 0
        let arrived = try arrivals.wait(through: target, until: began + bound)
        let elapsed = arrived - began
        let rate = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        print(String(format: "  long-running mode: %d changes saved and pushed at %.0f changes/s", count, rate))
    }

    /// The last origin transaction a replicated server transaction applied, from its author
    /// "StoreSync/<origin>/<n>" or "StoreSync/<origin>/<first>-<last>" (either with "/merged").
    static func lastAppliedTransaction(_ author: String?) -> Int64? {
        let parts = (author ?? "").split(separator: "/")
        guard parts.count >= 3, parts[0] == "StoreSync", let last = parts[2].split(separator: "-").last else { return nil }
        return Int64(last)
    }
}

/// When the server's replicated transactions arrived: the highest origin transaction applied so
/// far and the time it arrived, waited on by the thread that saved the changes.
final class ArrivalLog: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.
    private let lock = NSCondition()
    private var highest: Int64 = 0
    private var arrival = ContinuousClock.now
    private var failure: (any Error)?

    func record(_ last: Int64) {
        lock.withLock {
            guard last > highest else { return }
            highest = last
            arrival = ContinuousClock.now
            lock.broadcast()
        }
    }

    func fail(_ error: any Error) {
        lock.withLock {
            failure = error
            lock.broadcast()
        }
    }

    /// The time the transaction that applied `target` arrived.
    /// - Throws: the history updates' error, or an I/O error when `deadline` passes first.
    func wait(through target: Int64, until deadline: ContinuousClock.Instant) throws -> ContinuousClock.Instant {
        try lock.withLock {
            while highest < target {
                if let failure { throw failure }
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    throw DataStoreError(.ioFailure, "long-running mode: the changes through local transaction \(target) did not reach the server in time (\(highest) did)")
                }
                _ = lock.wait(until: Date() + Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
            }
            return arrival
        }
    }
}
