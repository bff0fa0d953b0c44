import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file operations durable backends need, each turning a failure into a
/// ``DataStoreError`` (``DataStoreError/Code/ioFailure``) that names the file and the system's
/// reason. Durability rests on `fsync` of files and of the directory that holds a file created or
/// renamed.
public enum FileIO {
    /// The error for a failed system call on `path`.
    public static func failure(_ what: String, _ path: String, errno code: Int32 = errno) -> DataStoreError {
        let reason = String(cString: strerror(code))
        var advice = ""
        if code == EACCES || code == EPERM { advice = " Check the file's permissions." }
        if code == ENOSPC { advice = " Free some disk space." }
        if code == ENOENT { advice = " Check that the directory exists." }
        return DataStoreError(.ioFailure, "Could not \(what) \(path): \(reason).\(advice)")
    }

    /// Identity of a file's contents as seen by `stat`: changes when the file is replaced.
    public struct Identity: Equatable, Sendable {
        public var inode: UInt64
        public var device: UInt64
        public var size: Int64
    }

    /// The file's identity, `nil` when it does not exist.
    public static func identity(_ path: String) throws -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw failure("inspect", path)
        }
        return Identity(inode: UInt64(info.st_ino), device: UInt64(info.st_dev), size: Int64(info.st_size))
    }

    /// Reads `path` from byte `offset` to its end.
    public static func read(_ path: String, from offset: Int64 = 0) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var position = offset
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(position)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", path)
            }
            if count == 0 { break }
            result.append(contentsOf: buffer[0..<count])
            position += Int64(count)
        }
        return result
    }

    /// Throws the injected fault for `operation` on `path`, if a test installed one.
    static func injectFault(_ operation: FileFaults.Operation, _ path: String) throws {
        if let fault = FileFaults.fault(operation, path) { throw failure("\(operation.rawValue) (injected fault)", path, errno: fault.code) }
    }

    /// Writes all of `data` to `fd`.
    public static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        if let fault = FileFaults.fault(.write, path) {
            // A short write: some bytes reach the file, then the call fails.
            let count = min(max(0, fault.bytesWritten), data.count)
            _ = data.prefix(count).withUnsafeBytes { write(fd, $0.baseAddress, count) }
            throw failure("write (injected fault)", path, errno: fault.code)
        }
        try data.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let count = write(fd, raw.baseAddress! + written, raw.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", path)
                }
                written += count
            }
        }
    }

    public static func fsyncOrThrow(_ fd: Int32, path: String) throws {
        try injectFault(.sync, path)
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw failure("flush to disk", path)
        }
    }

    /// Makes a directory entry durable (a created or renamed file in it).
    public static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open the directory of", path) }
        defer { close(fd) }
        try fsyncOrThrow(fd, path: directory)
    }

    /// Appends `data` at `expectedLength` of `path` (created if missing) and, when `sync` is set
    /// (the default), flushes it to disk before returning. On failure, the file is cut back to
    /// its previous length.
    public static func appendDurably(_ data: Data, to path: String, expectedLength: Int64, sync: Bool = true) throws {
        try injectFault(.create, path)
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        do {
            guard lseek(fd, off_t(expectedLength), SEEK_SET) >= 0 else { throw failure("seek in", path) }
            try writeAll(fd, data, path: path)
            if sync { try fsyncOrThrow(fd, path: path) }
            if expectedLength == 0 { try syncDirectory(of: path) }
        } catch {
            _ = ftruncate(fd, off_t(expectedLength))
            _ = fsync(fd)
            throw error
        }
    }

    /// Flushes `path` to disk.
    public static func sync(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        try fsyncOrThrow(fd, path: path)
    }

    /// Removes `path` if it exists.
    public static func remove(_ path: String) throws {
        try injectFault(.remove, path)
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("remove", path) }
    }

    /// Cuts `path` back to `length` bytes and flushes it (a torn journal tail).
    public static func truncate(_ path: String, to length: Int64) throws {
        try injectFault(.truncate, path)
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else { throw failure("truncate", path) }
        try fsyncOrThrow(fd, path: path)
    }

    /// Replaces `path` with `data` atomically: write a temporary file, flush it, rename it over
    /// `path`, flush the directory. A crash leaves the old file or the new one, never a mix.
    public static func replaceAtomically(_ path: String, with data: Data) throws {
        let temporary = path + ".tmp-\(getpid())"
        try injectFault(.create, temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("create", temporary) }
        var isOpen = true
        do {
            try writeAll(fd, data, path: temporary)
            try fsyncOrThrow(fd, path: temporary)
            close(fd)
            isOpen = false
            try injectFault(.rename, path)
            guard rename(temporary, path) == 0 else { throw failure("rename \(temporary) to", path) }
            try syncDirectory(of: path)
        } catch {
            if isOpen { close(fd) }
            unlink(temporary)
            throw error
        }
    }
}

/// An advisory lock on a file (`flock`): exclusive for writers, shared for readers, across
/// processes and across store instances in one process.
public final class FileLock: Sendable {
    public let path: String

    /// A lock on `path`, created when first taken.
    public init(path: String) { self.path = path }

    /// Runs `body` holding the lock; a shared lock on a lock file that does not exist (nothing
    /// written yet) runs `body` without one.
    /// - Throws: ``DataStoreError/Code/ioFailure`` when the lock file cannot be opened or locked.
    public func withLock<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
        // A reader never creates the lock file: a read-only open changes nothing on disk.
        let fd = exclusive ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) : open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0, !exclusive, errno == ENOENT { return try body() }   // nothing to read yet
        guard fd >= 0 else { throw FileIO.failure("open the lock file", path) }
        defer { close(fd) }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno == EINTR { continue }
            throw FileIO.failure("lock", path)
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
