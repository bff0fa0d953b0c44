import Foundation

/// Type-checks a source file that imports `DataStores` in a child `swiftc`, against the modules
/// and the macro plugin this build made (found beside the test bundle), and returns what the
/// compiler printed: how a user sees the macros' diagnostics. About 0.2–1 s a file.
struct ModelCompiler {
    /// The result of one compile.
    struct Output {
        let status: Int32
        /// Standard output and standard error together.
        let text: String

        /// The errors the compiler reported at a line of the source file, each
        /// `line:column: message` (without the compiler's "(from macro …)").
        var errors: [String] {
            text.split(separator: "\n").compactMap { line in
                guard line.hasPrefix("/"), let range = line.range(of: "Model.swift:"), line.contains(": error: ") else { return nil }
                var error = line[range.upperBound...].replacingOccurrences(of: " error: ", with: " ")
                if let from = error.range(of: " (from macro ", options: .backwards) { error = String(error[..<from.lowerBound]) }
                return error
            }
        }

        /// Every error message, wherever the compiler placed it (in a macro's expansion too).
        var errorMessages: [String] {
            text.split(separator: "\n").compactMap { line in
                guard !line.hasPrefix(" "), let range = line.range(of: ": error: ") else { return nil }
                return String(line[range.upperBound...])
            }
        }
    }

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    let buildDirectory: URL
    let swiftc: URL
    let plugin: URL

    init() throws {
        // The test bundle is `.build/<configuration>/<package>PackageTests.xctest`: the modules are
        // in `Modules/` beside it, the plugin is `DataStoresMacros-tool` there.
        buildDirectory = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        plugin = buildDirectory.appending(path: "DataStoresMacros-tool")
        guard FileManager.default.isExecutableFile(atPath: plugin.path) else {
            throw Missing(description: "\(plugin.path) is missing; build the package with `swift build --build-tests`")
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let found = path.split(separator: ":").map({ URL(filePath: String($0)).appending(path: "swiftc") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(description: "no swiftc on PATH")
        }
        swiftc = found
    }

    /// Type-checks `source` as `Model.swift` with `arguments` added (`-default-isolation MainActor`).
    func typecheck(_ source: String, arguments: [String] = []) throws -> Output {
        let directory = FileManager.default.temporaryDirectory.appending(path: "model-compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "Model.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let modules = buildDirectory.appending(path: "Modules")
        let process = Process()
        process.executableURL = swiftc
        process.arguments = ["-typecheck", "-swift-version", "6", "-I", modules.path,
                             "-load-plugin-executable", plugin.path + "#DataStoresMacros", file.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, text: String(decoding: data, as: UTF8.self))
    }
}
