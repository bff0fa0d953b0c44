import Foundation
import Testing

/// The helper executable (`StoreTestHelper`), built beside the test bundle.
func helperExecutable() throws -> URL {
    let directory = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
    let helper = directory.appending(path: "StoreTestHelper")
    guard FileManager.default.isExecutableFile(atPath: helper.path) else {
        throw HelperMissing(path: helper.path)
    }
    return helper
}

struct HelperMissing: Error, CustomStringConvertible {
    let path: String
    var description: String { "StoreTestHelper is not at \(path); build it with `swift build`." }
}

/// A running helper process whose standard output is read line by line.
final class ChildProcess {
    let process = Process()
    private let output = Pipe()
    private var buffer = Data()
    private(set) var lines: [String] = []

    init(_ arguments: [String]) throws {
        process.executableURL = try helperExecutable()
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// Reads until `count` lines have arrived or the output ends; returns whether they arrived.
    @discardableResult
    func waitForLines(_ count: Int) -> Bool {
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
    func finish() -> Int32 {
        waitForLines(.max)
        process.waitUntilExit()
        return process.terminationStatus
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }
}
