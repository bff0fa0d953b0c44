import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain, aligned text for people; JSON for programs (`--json`). No colour anywhere.
struct Output {
    let json: Bool

    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A message for the person at the terminal, never mixed into the data on standard output.
    func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Rows under a header, columns aligned; with `--json`, one array of objects.
    func table(_ header: [String], _ rows: [[String]], empty: String) {
        if json {
            let objects = rows.map { Dictionary(uniqueKeysWithValues: zip(header.map { $0.lowercased() }, $0)) }
            if let data = try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys]) {
                line(String(decoding: data, as: UTF8.self))
            }
            return
        }
        guard !rows.isEmpty else {
            line(empty)
            return
        }
        let widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        line(format(header))
        for row in rows { line(format(row)) }
    }

    /// One object, for results that are not tables.
    func object(_ fields: [String: Any], text: String) {
        if json, let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) {
            line(String(decoding: data, as: UTF8.self))
        } else {
            line(text)
        }
    }
}

/// A progress bar on standard error, drawn only when it is a terminal.
struct ProgressBar {
    let total: Int
    let enabled = Output.standardErrorIsTerminal

    func update(_ done: Int) {
        guard enabled, total > 0 else { return }
        let width = 30, filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
        if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// Formats dates for tables.
enum Dates {
    static func day(_ date: Date) -> String { Arguments.dayFormatter.string(from: date) }
    static func time(_ date: Date) -> String { date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false)) }
}
