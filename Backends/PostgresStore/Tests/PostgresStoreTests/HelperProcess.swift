import Foundation

/// A `pg-store-helper` process (or another executable of this package: `trips`), built beside
/// the test bundle, whose output is read line by line.
final class HelperProcess: @unchecked Sendable {
    // @unchecked: `buffer` is only touched by the thread calling `nextLine()`.
    let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private var buffer = Data()

    /// Starts the helper (or the package's executable `name`) with `arguments`.
    init(_ arguments: [String], executable name: String = "pg-store-helper") throws {
        let directory = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        var executable = directory.appending(path: name)
        if !FileManager.default.isExecutableFile(atPath: executable.path) {
            // Inside an .xctest bundle: the products directory is above it.
            executable = directory.deletingLastPathComponent().deletingLastPathComponent().appending(path: name)
        }
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardInput = input
        try process.run()
    }

    /// The next line of output, `nil` at its end. Blocks until the helper writes one.
    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer.append(data)
        }
    }

    /// Closes the helper's standard input (the reader's signal to finish).
    func closeInput() throws { try input.fileHandleForWriting.close() }

    /// Waits for the helper to exit and returns its status.
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}
