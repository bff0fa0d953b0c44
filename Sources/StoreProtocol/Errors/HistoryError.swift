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

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
