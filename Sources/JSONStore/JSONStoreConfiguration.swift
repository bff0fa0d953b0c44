import Foundation
import StoreProtocol

/// A durable store whose data lives in JSON files beside `url`: `url` itself (the base file),
/// `url.journal` (saves since the base was written) and `url.lock` (the writers' lock).
///
/// ```swift
/// let configuration = JSONStoreConfiguration(url: URL(filePath: "trips.json"))
/// ```
public struct JSONStoreConfiguration: DataStoreConfiguration {
    public typealias Store = JSONStore

    public var name: String
    /// The base file. Its directory must exist; the file is created on first open.
    public var url: URL
    public var schema: Schema?
    public var allowsSave: Bool
    /// How long history is kept.
    public var historyRetention: HistoryRetention
    /// The journal is folded into a new base file when it is larger than this many bytes and
    /// larger than the base file, so that folding costs O(1) amortized per save.
    public var compactionThreshold: Int

    /// Makes a configuration; nothing is checked or created until the store opens. By default the
    /// store is named after `url`'s last path component, holds every model type of the container,
    /// is writable, keeps all history, and folds its journal into the base file once the journal
    /// passes 1 MiB and the base file's size.
    public init(
        name: String? = nil, url: URL, schema: Schema? = nil, allowsSave: Bool = true,
        historyRetention: HistoryRetention = .unlimited, compactionThreshold: Int = 1 << 20
    ) {
        self.name = name ?? url.lastPathComponent
        self.url = url
        self.schema = schema
        self.allowsSave = allowsSave
        self.historyRetention = historyRetention
        self.compactionThreshold = compactionThreshold
    }

    /// The same configuration with `schema` before `url`, as the WWDC24 talk "Create a custom
    /// data store with SwiftData" writes its `JSONStoreConfiguration(schema:url:)`.
    public init(
        name: String? = nil, schema: Schema?, url: URL, allowsSave: Bool = true,
        historyRetention: HistoryRetention = .unlimited, compactionThreshold: Int = 1 << 20
    ) {
        self.init(name: name, url: url, schema: schema, allowsSave: allowsSave,
                  historyRetention: historyRetention, compactionThreshold: compactionThreshold)
    }
}

extension JSONStoreConfiguration: LocatableStoreConfiguration {
    public static let scheme = "json"
    public static let locationHelp = "json:PATH — a JSON store file (options: retention-transactions, retention-age such as 30d, read-only=true)"

    public init(location: StoreLocation) throws {
        try location.allowOnly(["retention-transactions", "retention-age", "read-only"])
        let path = try location.requirePath("path")
        self.init(url: URL(filePath: path), allowsSave: !(try location.boolean("read-only") ?? false),
                  historyRetention: HistoryRetention(maximumTransactions: try location.integer("retention-transactions"),
                                                     maximumAge: try location.duration("retention-age")))
    }
}
