import Foundation
import StoreProtocol

/// A fresh directory for one test, removed when the test process exits.
///
/// Tests take a directory here and never clean it themselves, so a failing test leaves its files
/// to look at until the run ends; the run removes them all on a normal exit (a crashed run keeps
/// them). `DATASTORES_KEEP_TEST_FILES=1` keeps them after a normal exit too. Without this, every
/// `swift test` left about 800 directories of store files in the temporary folder.
public func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appending(path: "store-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    createdDirectories.withLock { created in
        if created.isEmpty, ProcessInfo.processInfo.environment["DATASTORES_KEEP_TEST_FILES"] != "1" {
            atexit { removeCreatedDirectories() }
        }
        created.append(directory.path)
    }
    return directory
}

/// The directories ``temporaryDirectory()`` made in this process.
private let createdDirectories = Locked<[String]>([])

private func removeCreatedDirectories() {
    for path in createdDirectories.withLock({ $0 }) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
