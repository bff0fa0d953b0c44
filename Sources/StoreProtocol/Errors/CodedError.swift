/// The shape of the framework's errors: a `code` to match on and a `message` a person can act
/// on. Two errors are equal when their codes are, so `#expect(throws: DataStoreError(.readOnly, ""))`
/// and `catch let error as DataStoreError where error.code == .readOnly` both work.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure the error type distinguishes.
    associatedtype Code: Hashable & Sendable
    /// What went wrong, for a program to match on: equality and `~=` compare codes only.
    var code: Code { get }
    /// What went wrong and what to do, for a person: print it or log it, never match on it (it is
    /// also the error's `description`).
    var message: String { get }
}

extension CodedError {
    /// Matches an error of this type with the same code, so that a code works as a pattern, as
    /// SwiftData's errors do: `catch HistoryError.historyTokenExpired { … }`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        (error as? Self)?.code == pattern.code
    }

    public var description: String { message }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
