/// The shape of the framework's errors: a `code` to match on and a `message` a person can act
/// on. Two errors are equal when their codes are, so `#expect(throws: DataStoreError(.readOnly, ""))`
/// and `catch let error as DataStoreError where error.code == .readOnly` both work.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    associatedtype Code: Hashable & Sendable
    var code: Code { get }
    var message: String { get }
}

extension CodedError {
    public var description: String { message }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
