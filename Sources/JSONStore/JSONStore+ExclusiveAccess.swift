import StoreFiles
import StoreProtocol

extension JSONStore: ExclusiveAccessProviding {
    /// Runs `body` holding an exclusive `flock` on `<store>.access-lock`, a file beside the store
    /// (made when first needed): callers in other processes, and on other `JSONStore` instances of
    /// the same file in this process, wait. A separate file from the one saves lock, so that
    /// `body` can fetch and save. The lock ends when `body` returns or throws, or the process dies.
    /// - Throws: what `body` throws; `DataStoreError/Code/ioFailure` when the lock file cannot be
    ///   opened or locked.
    public func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result {
        let path = try FileIO.resolvingSymbolicLinks(configuration.url.path) + ".access-lock"
        return try FileLock(path: path).withLock(exclusive: true, body)
    }
}
