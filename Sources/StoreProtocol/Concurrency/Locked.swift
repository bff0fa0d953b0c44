import Foundation

/// A value behind a lock.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex calls that
/// ThreadSanitizer does not see, so every access it guards is reported as a race and real races
/// drown in the noise. This lock is a pthread mutex (through `NSLock`), which ThreadSanitizer
/// understands, so `swift test --sanitize=thread` checks the code that uses it.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
