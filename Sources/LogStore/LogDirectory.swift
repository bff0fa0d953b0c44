import Foundation
import StoreProtocol
import StoreFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a log's files are, decided once at open.
enum LogDirectory {
    /// The real path of the directory at `path`, symbolic links resolved, creating it (and its
    /// parents) when `create` is set and nothing is there. A log keeps using the directory it
    /// resolved at open, so a link that is later pointed elsewhere never mixes two sets of files,
    /// and no write replaces the link itself.
    ///
    /// - Returns: The resolved path (`path` itself when it does not exist and is not created),
    ///   and the topmost directory this call created, for an open that fails to remove again.
    /// - Throws: `DataStoreError/Code/invalidConfiguration` for a link to nothing or a path
    ///   that is not a directory; `DataStoreError/Code/ioFailure` when the system refuses.
    static func resolve(_ path: String, create: Bool) throws -> (path: String, created: String?) {
        var info = stat()
        var created: String?
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw FileIO.failure("inspect the log directory", path) }
            guard create else { return (path, nil) }
            // The topmost missing ancestor is what a failed open removes again.
            var missing = path
            while true {
                let parent = (missing as NSString).deletingLastPathComponent
                guard !parent.isEmpty, parent != missing, lstat(parent, &info) != 0, errno == ENOENT else { break }
                missing = parent
            }
            // Durably: a directory entry not flushed may go with the power, and every save in it.
            try FileIO.createDirectory(path)
            created = missing
        } else if info.st_mode & S_IFMT == S_IFLNK, FileIO.realPath(path) == nil {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            throw DataStoreError(.invalidConfiguration,
                "The log directory \(path) is a symbolic link to \(target), which does not exist. Create that directory, "
                + "or point the configuration at an existing directory; nothing was changed.")
        }
        guard let resolved = FileIO.realPath(path) else { throw FileIO.failure("resolve the log directory", path) }
        guard stat(resolved, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw DataStoreError(.invalidConfiguration,
                "The log directory \(path) is a file, not a directory. Point the configuration at a directory; nothing was changed.")
        }
        return (resolved, created)
    }
}

extension LogDirectory {
    /// Removes the log directory at `path` and its parents up to `created` (what a failed open
    /// created), unless the directory holds anything but its lock file: another process may have
    /// opened the same new log meanwhile and saved into it. Checked and removed under the
    /// exclusive lock, which every writer holds while it writes; a writer still waiting for the
    /// lock then finds the directory gone and fails with a typed error, having written nothing.
    static func removeUnlessUsed(_ path: String, createdFrom created: String, files: LogFiles, lock: FileLock) {
        try? lock.withLock(exclusive: true) {
            guard let names = try? files.names(), names.allSatisfy({ $0 == "lock" }) else { return }
            unlink(files.lock)
            var directory = path
            while rmdir(directory) == 0, directory != created {
                let parent = (directory as NSString).deletingLastPathComponent
                guard !parent.isEmpty, parent != directory else { return }
                directory = parent
            }
        }
    }
}

extension OpenFile {
    /// Throws unless `path` still names this held log directory.
    /// - Throws: `DataStoreError/Code/corruptStore` when it was removed or replaced.
    func checkLogDirectory() throws {
        guard try !isStill(at: path) else { return }
        if try FileIO.identity(path) == nil {
            throw DataStoreError(.corruptStore,
                "The log directory \(path) was removed while this store was open. Open the store again; nothing was changed.")
        }
        throw DataStoreError(.corruptStore,
            "The log directory \(path) was replaced by another directory while this store was open, so what is "
            + "there is not this store's. Open the store again to use what is there now; nothing was changed.")
    }
}
