import Foundation
import StoreProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file or directory held open while a store instance relies on it. An open file cannot be
/// freed, so its inode cannot be reused: comparing it with what its path names now tells
/// whether it was removed or replaced, which the contents or a `stat` alone cannot (a directory
/// re-created empty looks like an empty log; a file re-created of the same size in the inode
/// just freed looks unchanged).
final class HeldFile: Sendable {
    let path: String
    private let descriptor: Int32
    private let device: UInt64
    private let inode: UInt64

    /// Opens what is at `path` (a directory when `directory` is set); `nil` when nothing is there.
    init?(opening path: String, directory: Bool) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0))
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw FileIO.failure("open", path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw FileIO.failure("inspect", path, errno: code)
        }
        self.path = path
        self.descriptor = descriptor
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    deinit { close(descriptor) }

    /// Whether the path still names the held file: `nil` when nothing is there now.
    func isCurrent() throws -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else { throw FileIO.failure("inspect", path) }
            return nil
        }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Throws unless the path still names this held log directory.
    /// - Throws: ``DataStoreError/Code/corruptStore`` when it was removed or replaced.
    func checkLogDirectory() throws {
        switch try isCurrent() {
        case true?: return
        case nil:
            throw DataStoreError(.corruptStore,
                "The log directory \(path) was removed while this store was open. Open the store again; nothing was changed.")
        case false?:
            throw DataStoreError(.corruptStore,
                "The log directory \(path) was replaced by another directory while this store was open, so what is "
                + "there is not this store's. Open the store again to use what is there now; nothing was changed.")
        }
    }
}
