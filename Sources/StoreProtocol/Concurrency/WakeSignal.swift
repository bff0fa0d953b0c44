/// A one-slot signal between threads and one async waiter: ``signal()`` wakes the waiter, or, when
/// none waits, the next ``wait(upTo:)`` returns at once. Signals that arrive while one is pending
/// are one signal.
package final class WakeSignal: Sendable {
    private let state = Locked<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    package init() {}

    /// Wakes the waiter, or the next wait. Callable from any thread.
    package func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after a signal, after `limit`, or when the task is cancelled, whichever is first.
    package func wait(upTo limit: Duration) async {
        let timer = Task { [self] in
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { signal() }
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
