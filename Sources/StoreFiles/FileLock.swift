import Foundation
import StoreProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a file (`flock`): exclusive for writers, shared for readers, across
/// processes and across store instances in one process.
public final class FileLock: Sendable {
    /// The lock file's path.
    public let path: String

    /// A lock on `path`, created when first taken.
    public init(path: String) { self.path = path }

    /// Runs `body` holding the lock; a shared lock on a lock file that does not exist (no writer
    /// has opened the store yet) runs `body` without one and creates nothing.
    /// - Throws: `DataStoreError/Code/invalidConfiguration` when `path` is not a regular file
    ///   (a FIFO would block the open); `DataStoreError/Code/ioFailure` when the lock file cannot
    ///   be opened or locked.
    public func withLock<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
        // Readers never create the lock file: a read-only or failed open leaves nothing behind.
        guard let fd = try exclusive ? openCreating() : FileIO.openRegular(path, O_RDONLY) else {
            return try body()   // no writer yet: nothing to wait for
        }
        defer { close(fd) }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno == EINTR { continue }
            throw FileIO.failure("lock", path)
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// The lock file open for writing, created when missing; a new one's directory entry is
    /// flushed, as every file a store creates is.
    private func openCreating() throws -> Int32? {
        if let fd = try FileIO.openRegular(path, O_RDWR) { return fd }
        let fd = try FileIO.openRegular(path, O_RDWR | O_CREAT)
        do {
            try FileIO.syncDirectory(of: path)
        } catch {
            if let fd { close(fd) }
            throw error
        }
        return fd
    }
}
