import Foundation
import StoreProtocol

extension HistoryConsumers {
    /// Consumers kept in the JSON file at `url`, which processes share: every read takes the
    /// file's shared lock, every update its exclusive lock and replaces the file atomically.
    /// In memory, as `HistoryConsumers()`, when `url` is `nil`.
    public convenience init(url: URL?) {
        guard let url else {
            self.init()
            return
        }
        self.init(storage: HistoryConsumersFile(url: url))
    }
}

/// A consumers file: a JSON object, consumer name -> `DefaultHistoryToken`, beside its lock file.
struct HistoryConsumersFile: HistoryConsumerStorage {
    let url: URL

    func tokens() throws -> [String: DefaultHistoryToken] {
        try FileLock(path: url.path + ".lock").withLock(exclusive: false) { try read() }
    }

    func update(_ change: (inout [String: DefaultHistoryToken]) -> Void) throws {
        try FileLock(path: url.path + ".lock").withLock(exclusive: true) {
            var tokens = try read()
            change(&tokens)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try FileIO.replaceAtomically(url.path, with: try encoder.encode(tokens))
        }
    }

    private func read() throws -> [String: DefaultHistoryToken] {
        guard try FileIO.identity(url.path) != nil else { return [:] }
        do {
            return try JSONDecoder().decode([String: DefaultHistoryToken].self, from: FileIO.read(url.path))
        } catch {
            throw DataStoreError(.corruptStore, "\(url.path) is not a history consumers file (\(error)). Remove it to start over.")
        }
    }
}
