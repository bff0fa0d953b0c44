import StoreBuildingBlocks
import StoreFiles
import StoreProtocol

extension JSONStore: ExclusiveAccessProviding {
    /// Runs `body` holding an exclusive `flock` on `<store>.access-lock`, a file beside the store
    /// (made when first needed): callers in other processes, and on other `JSONStore` instances of
    /// the same file in this process, wait. A separate file from the one saves lock, so that
    /// `body` can fetch and save. The lock ends when `body` returns or throws, or the process dies.
    /// A nested call on this instance inside `body` (by the task or thread that runs it) runs its
    /// body at once: a second `flock` of the file would wait for the first.
    /// - Throws: what `body` throws; `DataStoreError/Code/ioFailure` when the lock file cannot be
    ///   opened or locked.
    public func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result {
        try ExclusiveAccessNesting.withAccess(self, take: { body in
            let path = try FileIO.resolvingSymbolicLinks(configuration.url.path) + ".access-lock"
            return try FileLock(path: path).withLock(exclusive: true, body)
        }, body)
    }
}
