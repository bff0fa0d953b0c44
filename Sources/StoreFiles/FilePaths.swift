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
    /// The path a store should use for `path`: its directory with symbolic links resolved, and
    /// `path` itself resolved when it is a link.
    ///
    /// A store names its other files after this path (`trips.json.journal`) and replaces it by
    /// `rename`; through an unresolved link it would read another journal than the target's, and
    /// its first compaction would replace the link with a regular file, orphaning the target.
    /// - Throws: `DataStoreError/Code/invalidConfiguration` when the directory does not exist,
    ///   or `path` is a link to nothing.
    public static func resolvingSymbolicLinks(_ path: String) throws -> String {
        let url = URL(filePath: path)
        let directory = url.deletingLastPathComponent().path
        guard let resolvedDirectory = realPath(directory), isDirectory(resolvedDirectory) else {
            throw DataStoreError(.invalidConfiguration,
                "The directory \(directory) of the store \(path) does not exist. Create it first.")
        }
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            guard let target = realPath(path) else {
                throw DataStoreError(.invalidConfiguration,
                    "The store path \(path) is a symbolic link to a file that does not exist. Point the configuration "
                    + "at the target's location, or create the target first.")
            }
            return target
        }
        return (resolvedDirectory as NSString).appendingPathComponent(url.lastPathComponent)
    }

    /// Removes the temporary files `replaceAtomically(_:with:)` leaves for `path` when a crash
    /// stops it before its rename. Call it only while no other writer can be replacing `path`
    /// (under the store's exclusive lock).
    /// - Throws: `DataStoreError/Code/ioFailure` when one cannot be removed.
    public static func removeTemporaryFiles(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + temporarySuffix
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        for name in names where name.hasPrefix(prefix) {
            try remove((directory as NSString).appendingPathComponent(name))
        }
    }

    /// What `replaceAtomically(_:with:)` appends to a path (then the process identifier) to
    /// name its temporary file.
    public static let temporarySuffix = ".tmp-"

    /// `path` with every symbolic link and `.`/`..` resolved (`realpath(3)`); `nil` when it, or
    /// a link on the way, names nothing.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path.isEmpty ? "." : path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
