import Foundation
import StoreProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The log's directory, held open while a store instance uses it. An open directory cannot be
/// freed, so its inode cannot be reused: comparing it with what the path names now tells
/// whether the directory was removed or replaced (a store re-created at the same path), which
/// the files alone cannot (an empty new directory looks like an empty log).
final class DirectoryHandle: Sendable {
    let path: String
    private let descriptor: Int32
    private let device: UInt64
    private let inode: UInt64

    /// Opens the directory at `path`; `nil` when nothing is there.
    init?(opening path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw FileIO.failure("open the log directory", path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw FileIO.failure("inspect the log directory", path, errno: code)
        }
        self.path = path
        self.descriptor = descriptor
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    deinit { close(descriptor) }

    /// Throws unless the path still names the directory this handle holds.
    /// - Throws: ``DataStoreError/Code/corruptStore`` when it was removed or replaced.
    func check() throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else { throw FileIO.failure("inspect the log directory", path) }
            throw DataStoreError(.corruptStore,
                "The log directory \(path) was removed while this store was open. Open the store again; nothing was changed.")
        }
        guard UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else {
            throw DataStoreError(.corruptStore,
                "The log directory \(path) was replaced by another directory while this store was open, so what is "
                + "there is not this store's. Open the store again to use what is there now; nothing was changed.")
        }
    }
}
