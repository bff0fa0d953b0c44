/// What a backend can do; the suite picks cases by it. A case that needs a capability the
/// backend lacks is replaced by one that checks the refusal, not skipped.
public struct StoreCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Records history (`HistoryProviding` with `StoreProtocol/DefaultHistoryTransaction`).
    public static let history = StoreCapabilities(rawValue: 1 << 0)
    /// Updates and deletes stored models. Without it, the store must refuse them with
    /// `DataStoreError` `.unsupportedFeature`, changing nothing.
    public static let updates = StoreCapabilities(rawValue: 1 << 1)
    /// Keeps data and history across reopening the same configuration.
    public static let persistence = StoreCapabilities(rawValue: 1 << 2)
    /// Deletes history on request (`deleteHistory`), expiring older tokens.
    public static let historyDeletion = StoreCapabilities(rawValue: 1 << 3)

    /// Keeps only the history its configuration's `HistoryRetention` allows,
    /// expiring older tokens. Set by ``ConformanceTarget/retaining(_:)``, which says how to make
    /// such a configuration; not part of ``all``, as a configuration's retention is the backend's.
    public static let historyRetention = StoreCapabilities(rawValue: 1 << 4)

    /// Everything a full backend does.
    public static let all: StoreCapabilities = [.history, .updates, .persistence, .historyDeletion]
}
