import Foundation
import StoreProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file operations durable backends need, each turning a failure into a
/// `DataStoreError` (`DataStoreError/Code/ioFailure`) that names the file and the system's
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
        /// The file's inode number (`st_ino`).
        public var inode: UInt64
        /// The device that holds the file (`st_dev`).
        public var device: UInt64
        /// The file's length in bytes (`st_size`).
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
        guard let file = try OpenFile.open(path) else { throw failure("open", path, errno: ENOENT) }
        return try file.read(from: offset)
    }

    #if DEBUG
    /// Throws the injected fault for `operation` on `path`, if a test installed one.
    static func injectFault(_ operation: FileFaults.Operation, _ path: String) throws {
        if let fault = FileFaults.fault(operation, path) { throw failure("\(operation.rawValue) (injected fault)", path, errno: fault.code) }
    }

    /// Tells test observers (`FileFaults/Observer`) that `event` is about to run, and throws
    /// the failure one injects (a simulated power loss). One atomic load when none is installed:
    /// the event is built only for an observer.
    @inline(__always)
    static func willPerform(_ event: @autoclosure () -> FileFaults.Event) throws -> FileFaults.Event? {
        guard FileFaults.isObserving else { return nil }
        let event = event()
        if let fault = FileFaults.willPerform(event) {
            throw failure("\(event) (injected fault) at", event.path, errno: fault.code)
        }
        return event
    }

    /// Tells test observers that `event` (from `willPerform(_:)`) succeeded.
    @inline(__always)
    static func didPerform(_ event: FileFaults.Event?) {
        if let event { FileFaults.didPerform(event) }
    }

    /// Runs a clean-up step after a failure only if no observer refuses it: after a simulated
    /// power loss the process is gone, so nothing it would still do may reach the files.
    static func cleanUp(_ event: @autoclosure () -> FileFaults.Event, _ step: () -> Int32) {
        guard let observed = try? willPerform(event()) else {
            if !FileFaults.isObserving { _ = step() }
            return
        }
        if step() == 0 { didPerform(observed) }
    }
    #else
    // Release builds have no fault injection: every hook is nothing, and the descriptions of
    // the operations (autoclosures) are never built.
    @inline(__always)
    static func injectFault(_ operation: FileFaults.Operation, _ path: String) throws {}

    @inline(__always)
    static func willPerform(_ event: @autoclosure () -> FileFaults.Event) throws -> FileFaults.Event? { nil }

    @inline(__always)
    static func didPerform(_ event: FileFaults.Event?) {}

    @inline(__always)
    static func cleanUp(_ event: @autoclosure () -> FileFaults.Event, _ step: () -> Int32) { _ = step() }
    #endif

    /// Writes all of `data` to `fd`.
    public static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        let observed = try willPerform(.write(path: path, offset: Int64(lseek(fd, 0, SEEK_CUR)), bytes: data))
        #if DEBUG
        if let fault = FileFaults.fault(.write, path) {
            // A short write: some bytes reach the file, then the call fails.
            let count = min(max(0, fault.bytesWritten), data.count)
            _ = data.prefix(count).withUnsafeBytes { write(fd, $0.baseAddress, count) }
            throw failure("write (injected fault)", path, errno: fault.code)
        }
        #endif
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
        didPerform(observed)
    }

    /// Flushes an open file or directory to disk (`fsync`), retrying when interrupted.
    /// - Parameters:
    ///   - fd: The open file or directory.
    ///   - path: Its path, for the error message and the test observers.
    /// - Throws: `DataStoreError` `.ioFailure` naming `path` when `fsync` fails.
    public static func fsyncOrThrow(_ fd: Int32, path: String) throws {
        try injectFault(.sync, path)
        let observed = try willPerform(isDirectory(fd) ? .syncDirectory(path: path) : .syncFile(path: path))
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw failure("flush to disk", path)
        }
        didPerform(observed)
    }

    private static func isDirectory(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Makes a directory entry durable (a created or renamed file in it).
    public static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard let fd = try openRegular(directory.isEmpty ? "." : directory, O_RDONLY, directory: true) else {
            throw failure("open the directory of", path, errno: ENOENT)
        }
        defer { close(fd) }
        try fsyncOrThrow(fd, path: directory)
    }

    /// Creates the directory `path` and its missing parents, durably: each new directory's
    /// entry reaches the disk (its parent is flushed) before this returns. Under POSIX's rules a
    /// directory entry is durable only once its directory is flushed; without it, a power loss
    /// can take the new directory away with every file flushed into it since.
    /// - Returns: The topmost directory created, `nil` when `path` was there already (another
    ///   process may create it at the same time: that is not an error).
    /// - Throws: `DataStoreError/Code/ioFailure` when the system refuses (a part of `path` is a
    ///   file, permissions).
    @discardableResult
    public static func createDirectory(_ path: String) throws -> String? {
        var missing: [String] = []
        var info = stat()
        var current = path
        while !current.isEmpty, current != "/", stat(current, &info) != 0 {
            guard errno == ENOENT else { throw failure("inspect", current) }
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        var created: [String] = []
        for directory in missing.reversed() {
            let observed = try willPerform(.createDirectory(path: directory))
            guard mkdir(directory, 0o755) == 0 else {
                if errno == EEXIST { continue }
                throw failure("create the directory", directory)
            }
            didPerform(observed)
            created.append(directory)
        }
        for directory in created.reversed() {
            #if DEBUG
            if FileFaults.skipsParentSync(of: directory) { continue }
            #endif
            try syncDirectory(of: directory)
        }
        return created.first
    }

    /// Appends `data` at `expectedLength` of `path` (created if missing) and, when `sync` is set
    /// (the default), flushes it to disk before returning. On failure, the file is cut back to
    /// its previous length.
    public static func appendDurably(_ data: Data, to path: String, expectedLength: Int64, sync: Bool = true) throws {
        try injectFault(.create, path)
        let creation = try willPerform(.create(path: path, truncating: false))
        guard let fd = try openRegular(path, O_WRONLY | O_CREAT) else { throw failure("open", path, errno: ENOENT) }
        didPerform(creation)
        defer { close(fd) }
        do {
            guard lseek(fd, off_t(expectedLength), SEEK_SET) >= 0 else { throw failure("seek in", path) }
            try writeAll(fd, data, path: path)
            if sync { try fsyncOrThrow(fd, path: path) }
            if expectedLength == 0 { try syncDirectory(of: path) }
        } catch {
            cleanUp(.truncate(path: path, length: expectedLength)) { ftruncate(fd, off_t(expectedLength)) }
            cleanUp(.syncFile(path: path)) { fsync(fd) }
            throw error
        }
    }

    /// Flushes `path` to disk.
    public static func sync(_ path: String) throws {
        guard let fd = try openRegular(path, O_WRONLY) else { throw failure("open", path, errno: ENOENT) }
        defer { close(fd) }
        try fsyncOrThrow(fd, path: path)
    }

    /// Removes `path` if it exists.
    public static func remove(_ path: String) throws {
        try injectFault(.remove, path)
        let observed = try willPerform(.remove(path: path))
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("remove", path) }
        didPerform(observed)
    }

    /// Cuts `path` back to `length` bytes and flushes it (a torn journal tail).
    public static func truncate(_ path: String, to length: Int64) throws {
        try injectFault(.truncate, path)
        guard let fd = try openRegular(path, O_WRONLY) else { throw failure("open", path, errno: ENOENT) }
        defer { close(fd) }
        let observed = try willPerform(.truncate(path: path, length: length))
        guard ftruncate(fd, off_t(length)) == 0 else { throw failure("truncate", path) }
        didPerform(observed)
        try fsyncOrThrow(fd, path: path)
    }

    /// Replaces `path` with `data` atomically: write a temporary file, flush it, rename it over
    /// `path`, flush the directory. A crash leaves the old file or the new one, never a mix.
    public static func replaceAtomically(_ path: String, with data: Data) throws {
        let temporary = path + temporarySuffix + "\(getpid())"
        try injectFault(.create, temporary)
        let creation = try willPerform(.create(path: temporary, truncating: true))
        guard let fd = try openRegular(temporary, O_WRONLY | O_CREAT | O_TRUNC) else { throw failure("create", temporary, errno: ENOENT) }
        didPerform(creation)
        var isOpen = true
        do {
            try writeAll(fd, data, path: temporary)
            try fsyncOrThrow(fd, path: temporary)
            close(fd)
            isOpen = false
            try injectFault(.rename, path)
            let renaming = try willPerform(.rename(from: temporary, to: path))
            guard rename(temporary, path) == 0 else { throw failure("rename \(temporary) to", path) }
            didPerform(renaming)
            try syncDirectory(of: path)
        } catch {
            if isOpen { close(fd) }
            cleanUp(.remove(path: temporary)) { unlink(temporary) }
            throw error
        }
    }
}
