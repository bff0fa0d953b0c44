import Foundation
import StoreProtocol

/// Where a ``ModelConfiguration`` without a URL keeps its store: SwiftData's application-support
/// location, as Linux names it (the XDG base directories).
struct DefaultStoreLocation: Hashable, Sendable {
    /// The directory that must exist: `$XDG_DATA_HOME`, else the home directory (`$HOME`, else
    /// the user's from the password database).
    let home: URL
    /// The folder of this program's stores: `<XDG_DATA_HOME>/<executable>`, or
    /// `<home>/.local/share/<executable>`. Created on open.
    let directory: URL

    /// XDG's rule: `XDG_DATA_HOME` counts only when it is an absolute path.
    init(environment: [String: String], executableName: String) {
        let program = executableName.isEmpty ? "default" : executableName
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            home = URL(filePath: data, directoryHint: .isDirectory)
            directory = home.appending(path: program, directoryHint: .isDirectory)
        } else {
            if let path = environment["HOME"], !path.isEmpty {
                home = URL(filePath: path, directoryHint: .isDirectory)
            } else {
                home = FileManager.default.homeDirectoryForCurrentUser
            }
            directory = home.appending(path: ".local/share", directoryHint: .isDirectory)
                .appending(path: program, directoryHint: .isDirectory)
        }
    }

    /// Creates ``directory`` (and the folders between it and ``home``).
    /// - Throws: `DataStoreError.invalidConfiguration` naming the path when ``home`` does not
    ///   exist or is not a directory, or when the folders cannot be created (a read-only home);
    ///   nothing is created then.
    func createDirectory() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: home.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DataStoreError(.invalidConfiguration,
                "The default store belongs under \(home.path), which is not an existing directory: create it, set "
                + "XDG_DATA_HOME (or HOME) to a directory of yours, or give ModelConfiguration a url.")
        }
        do {
            // 0700, as the XDG base directory specification asks: the folders hold the user's data.
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw DataStoreError(.invalidConfiguration,
                "The default store's folder \(directory.path) cannot be created under \(home.path) "
                + "(\((error as NSError).localizedDescription)): make \(home.path) writable, set XDG_DATA_HOME to a "
                + "writable directory, or give ModelConfiguration a url.", underlyingError: error)
        }
    }
}
