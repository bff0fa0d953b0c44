import Foundation
import StoreBuildingBlocks
import StoreProtocol

extension MemoryStore: ExclusiveAccessProviding {
    /// Runs `body` holding a lock of the store's data (shared by every `MemoryStore` opened on
    /// the same shared store), other than the one saves take, so that `body` can fetch and save.
    /// A nested call inside `body` (on this or any instance of the same data, by the task or
    /// thread that runs `body`) runs its body at once.
    /// - Throws: what `body` throws.
    public func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result {
        let lock = MemoryStoreAccessLocks.lock(for: identifier)
        return try ExclusiveAccessNesting.withAccess(lock, take: { try lock.withLock($0) }, body)
    }
}

/// One lock per memory store's data, by identifier, made when first needed and kept (a few bytes
/// per store opened with exclusive access).
private enum MemoryStoreAccessLocks {
    static func lock(for identifier: String) -> NSLock {
        locks.withLock { locks in
            if let lock = locks[identifier] { return lock }
            let lock = NSLock()
            locks[identifier] = lock
            return lock
        }
    }

    private static let locks = Locked<[String: NSLock]>([:])
}
