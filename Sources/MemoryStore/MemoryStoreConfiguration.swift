import StoreProtocol

/// An in-memory store, for previews, tests and caches.
///
/// ```swift
/// let preview = MemoryStoreConfiguration(seed: { [Trip(name: "Sample", …)] })
/// let container = try ModelContainer(for: Trip.self, configurations: preview)
/// ```
public struct MemoryStoreConfiguration: DataStoreConfiguration {
    public typealias Store = MemoryStore

    public var name: String
    public var schema: Schema?
    public var allowsSave: Bool
    /// When `true`, every store opened in this process with the same `name` shares one set of
    /// data and history (until the process ends).
    public var isShared: Bool
    /// How long history is kept.
    public var historyRetention: HistoryRetention
    /// Models the store starts with, stored without a history transaction. Called once, when
    /// the store (or, if shared, its first opening) is made.
    public var seed: (@Sendable () -> [any PersistentModel])?

    /// Makes a configuration; nothing is checked until the store opens. By default a private store
    /// named "memory" holding every model type of the container, writable, keeping all history, and
    /// empty.
    public init(
        name: String = "memory", schema: Schema? = nil, isShared: Bool = false, allowsSave: Bool = true,
        historyRetention: HistoryRetention = .unlimited, seed: (@Sendable () -> [any PersistentModel])? = nil
    ) {
        self.name = name
        self.schema = schema
        self.isShared = isShared
        self.allowsSave = allowsSave
        self.historyRetention = historyRetention
        self.seed = seed
    }
}

extension MemoryStoreConfiguration: LocatableStoreConfiguration {
    public static let scheme = "memory"
    public static let locationHelp = "memory:NAME — in memory, shared by NAME within the process (options: retention-transactions)"

    public init(location: StoreLocation) throws {
        try location.allowOnly(["retention-transactions"])
        let name = location.path.isEmpty ? "memory" : location.path
        self.init(name: name, isShared: true,
                  historyRetention: HistoryRetention(maximumTransactions: try location.integer("retention-transactions")))
    }
}
