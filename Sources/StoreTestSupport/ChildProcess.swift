import Foundation

/// One of the package's executables (`StoreTestHelper`, `trips`), built beside the test bundle.
public func helperExecutable(_ name: String = "StoreTestHelper") throws -> URL {
    let directory = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
    let helper = directory.appending(path: name)
    guard FileManager.default.isExecutableFile(atPath: helper.path) else {
        throw HelperMissing(path: helper.path)
    }
    return helper
}

public struct HelperMissing: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "\(path) is missing; build it with `swift build`." }
}

/// A running helper process whose standard output is read line by line.
public final class ChildProcess {
    public let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = Data()
    public private(set) var lines: [String] = []
    /// What the process wrote to standard error, once ``finish()`` returned.
    public private(set) var errorText = ""

    /// Starts `executable` with `arguments`, in `directory` when given, with `environment` added.
    public init(_ arguments: [String], executable: String = "StoreTestHelper", directory: URL? = nil,
                environment: [String: String] = [:]) throws {
        process.executableURL = try helperExecutable(executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try process.run()
    }

    /// Reads until `count` lines have arrived or the output ends; returns whether they arrived.
    @discardableResult
    public func waitForLines(_ count: Int) -> Bool {
        while lines.count < count {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }   // end of output: the process ended
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
        }
        return true
    }

    /// Reads everything the process wrote, then waits for it to exit.
    public func finish() -> Int32 {
        waitForLines(.max)
        errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }
}

/// Busy-waits up to `maximumNanoseconds`, a random amount: not to synchronise anything, but to
/// move a kill to a random point of the child's work.
public func randomPause(maximumNanoseconds: UInt64, using generator: inout some RandomNumberGenerator) {
    let until = DispatchTime.now().uptimeNanoseconds + UInt64.random(in: 0...maximumNanoseconds, using: &generator)
    while DispatchTime.now().uptimeNanoseconds < until {}
}
