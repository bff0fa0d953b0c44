import Foundation

/// How long a store keeps history. Older transactions are deleted as new ones are recorded,
/// and tokens that pointed at them expire.
public struct HistoryRetention: Sendable, Hashable, Codable {
    /// Keep at most this many transactions; `nil` for no limit.
    public var maximumTransactions: Int?
    /// Keep transactions at most this old (seconds); `nil` for no limit.
    public var maximumAge: TimeInterval?

    /// Makes a retention from both limits; `nil` for no limit (the default keeps all history).
    public init(maximumTransactions: Int? = nil, maximumAge: TimeInterval? = nil) {
        self.maximumTransactions = maximumTransactions
        self.maximumAge = maximumAge
    }

    /// Keep all history.
    public static let unlimited = HistoryRetention()
    /// Keep the newest `count` transactions.
    public static func transactions(_ count: Int) -> HistoryRetention { HistoryRetention(maximumTransactions: count) }
    /// Keep transactions recorded within `seconds`.
    public static func age(_ seconds: TimeInterval) -> HistoryRetention { HistoryRetention(maximumAge: seconds) }
}
