import Foundation

/// A command line: the command, its positional words, and `--name value` options
/// (`--flag` alone is "true").
struct Arguments {
    var command: String?
    var positional: [String] = []
    var options: [String: String] = [:]

    /// Options that take no value.
    static let flags: Set<String> = ["json", "all", "consumed", "help"]

    init(_ words: [String]) throws {
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    options[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if Self.flags.contains(name) {
                    options[name] = "true"
                } else {
                    guard index + 1 < words.count else { throw UsageError("--\(name) needs a value") }
                    options[name] = words[index + 1]
                    index += 1
                }
            } else if command == nil {
                command = word
            } else {
                positional.append(word)
            }
            index += 1
        }
    }

    func flag(_ name: String) -> Bool { options[name] == "true" }

    func required(_ name: String) throws -> String {
        guard let value = options[name] else { throw UsageError("--\(name) is required") }
        return value
    }

    /// The trip's name: the positional words, so that `confirm New York` needs no quotes.
    func name() throws -> String {
        guard !positional.isEmpty else { throw UsageError("give the trip's name") }
        return positional.joined(separator: " ")
    }

    func integer(_ name: String, default value: Int) throws -> Int {
        guard let text = options[name] else { return value }
        guard let number = Int(text), number >= 0 else { throw UsageError("--\(name) takes a whole number, not \(text)") }
        return number
    }

    func date(_ name: String) throws -> Date {
        try Self.parseDate(try required(name), option: name)
    }

    static func parseDate(_ text: String, option: String) throws -> Date {
        guard let date = dayFormatter.date(from: text) else { throw UsageError("--\(option) takes a date like 2026-06-01, not \(text)") }
        return date
    }

    static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()
}

/// A mistake in the command line: printed with the usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
