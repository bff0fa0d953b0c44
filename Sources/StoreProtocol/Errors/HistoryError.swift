/// An error reading or deleting history.
public struct HistoryError: CodedError {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// History after the token was deleted: discard the token, re-read your data, and start
        /// again from ``HistoryProviding/currentHistoryToken()``.
        public static let historyTokenExpired = Code(rawValue: "historyTokenExpired")
        /// The token belongs to another store, or is ahead of this one.
        public static let foreignToken = Code(rawValue: "foreignToken")
        /// The container holds no store that provides this kind of history.
        public static let historyUnavailable = Code(rawValue: "historyUnavailable")
    }

    public var code: Code
    public var message: String

    /// Makes an error with a code to match on and a message for a person, as given.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}

/// Each code as an error value, to match with `catch HistoryError.code` (the messages are
/// placeholders: a thrown error has its own).
extension HistoryError {
    /// Matches a thrown error of code ``Code/historyTokenExpired``.
    public static let historyTokenExpired = HistoryError(.historyTokenExpired, "historyTokenExpired")
    /// Matches a thrown error of code ``Code/foreignToken``.
    public static let foreignToken = HistoryError(.foreignToken, "foreignToken")
    /// Matches a thrown error of code ``Code/historyUnavailable``.
    public static let historyUnavailable = HistoryError(.historyUnavailable, "historyUnavailable")
}
