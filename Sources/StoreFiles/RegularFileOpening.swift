import Foundation
import StoreProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileIO {
    /// `open(2)` for a store's own files: never blocks, and refuses anything but a regular file
    /// (a directory, when `directory` is set).
    ///
    /// A plain `open` of a FIFO waits for a process at its other end, so a FIFO (or a device)
    /// at a store's path would hang the open for good; `O_NONBLOCK` returns at once, and the
    /// file's type is checked on the descriptor (no window for a swap between a check and the
    /// open). The flag is cleared again on a regular file, where it has no effect anyway.
    /// - Returns: The descriptor, `nil` when nothing is at `path` (and `flags` has no `O_CREAT`).
    /// - Throws: `DataStoreError/Code/invalidConfiguration` for a file of another type;
    ///   `DataStoreError/Code/ioFailure` when the system refuses.
    public static func openRegular(_ path: String, _ flags: Int32, directory: Bool = false) throws -> Int32? {
        let descriptor = open(path, flags | O_NONBLOCK | O_CLOEXEC | (directory ? O_DIRECTORY : 0), 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT, flags & O_CREAT == 0 { return nil }
            // A FIFO without a reader refuses a non-blocking writer (ENXIO); a socket cannot be
            // opened at all; a file where a directory is wanted is ENOTDIR, a directory opened for
            // writing EISDIR.
            if code == ENXIO || code == EOPNOTSUPP || code == ENOTDIR || code == EISDIR, let kind = fileKind(atPath: path),
               kind != expected(directory) {
                throw notRegular(path, kind: kind, directory: directory)
            }
            throw failure("open", path, errno: code)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = failure("inspect", path)
            close(descriptor)
            throw error
        }
        guard info.st_mode & S_IFMT == expected(directory) else {
            close(descriptor)
            throw notRegular(path, kind: info.st_mode & S_IFMT, directory: directory)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    private static func expected(_ directory: Bool) -> mode_t { directory ? S_IFDIR : S_IFREG }

    private static func fileKind(atPath path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    private static func notRegular(_ path: String, kind: mode_t, directory: Bool) -> DataStoreError {
        let names: [mode_t: String] = [
            S_IFIFO: "a FIFO (named pipe)", S_IFSOCK: "a socket", S_IFCHR: "a character device", S_IFBLK: "a block device",
            S_IFDIR: "a directory", S_IFREG: "a regular file",
        ]
        return DataStoreError(.invalidConfiguration,
            "\(path) is \(names[kind] ?? "not a regular file"), where the store keeps \(directory ? "a directory" : "a regular file"). "
            + "Remove it, or point the configuration at another path; nothing was read or written.")
    }
}
