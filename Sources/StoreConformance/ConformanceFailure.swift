/// A broken rule: what the case expected and what the store did.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// What the case expected and what the store did.
    public let message: String
    /// The file (`#fileID`) of the check that failed.
    public let file: String
    /// The line of the check that failed.
    public let line: Int

    /// Makes a failure that says `message`, located at the caller's file and line by default.
    public init(_ message: String, file: String = #fileID, line: Int = #line) {
        self.message = message
        self.file = file
        self.line = line
    }

    public var description: String { "\(message) (\(file):\(line))" }
}

/// Fails unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String, file: String = #fileID, line: Int = #line) throws {
    if !condition { throw ConformanceFailure(message(), file: file, line: line) }
}

/// Fails unless `observed == expected`, saying both.
func checkEqual<T: Equatable>(_ observed: T, _ expected: T, _ what: String, file: String = #fileID, line: Int = #line) throws {
    if observed != expected {
        throw ConformanceFailure("\(what): expected \(expected), saw \(observed)", file: file, line: line)
    }
}

/// Fails unless `body` throws an error equal to `expected` (our error types compare by code).
func checkThrows<E: Error & Equatable>(
    _ expected: E, _ what: String, file: String = #fileID, line: Int = #line, _ body: () throws -> Void
) throws {
    do {
        try body()
    } catch let error as E where error == expected {
        return
    } catch {
        throw ConformanceFailure("\(what): expected \(E.self) \(expected), got \(type(of: error)): \(error)", file: file, line: line)
    }
    throw ConformanceFailure("\(what): expected \(E.self) \(expected), but it did not throw", file: file, line: line)
}

/// Unwraps a value the case needs, failing with `what` when it is missing.
func require<T>(_ value: T?, _ what: String, file: String = #fileID, line: Int = #line) throws -> T {
    guard let value else { throw ConformanceFailure("\(what): expected a value, saw nil", file: file, line: line) }
    return value
}
