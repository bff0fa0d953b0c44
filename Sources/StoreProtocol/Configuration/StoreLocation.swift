import Foundation

/// A store named by a string, for configuration files and environment variables:
/// `scheme:path?option=value&option=value`, such as `json:/data/trips.json`,
/// `log:/data/readings?retention-age=30d` or `memory:preview`.
public struct StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// What comes before the first `:`, lowercased: it picks the backend (`json`, `log`, `memory`).
    public let scheme: String
    /// What follows `scheme:` up to `?`: a path for file stores, a name for memory stores.
    public let path: String
    /// The `name=value` pairs after `?`, by name, their values percent-decoded; a later pair
    /// replaces an earlier one of the same name.
    public let options: [String: String]

    /// Parses a location string.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration`` when there is no `scheme:` or an
    ///   option is not `name=value`.
    public init(parsing string: String) throws {
        guard let colon = string.firstIndex(of: ":"), colon != string.startIndex else {
            throw DataStoreError(.invalidConfiguration,
                "'\(string)' is not a store location: write SCHEME:PATH, for example json:trips.json or memory:preview.")
        }
        scheme = string[..<colon].lowercased()
        let rest = string[string.index(after: colon)...]
        let query = rest.firstIndex(of: "?")
        path = String(rest[..<(query ?? rest.endIndex)])
        var options: [String: String] = [:]
        if let query {
            for pair in rest[rest.index(after: query)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw DataStoreError(.invalidConfiguration,
                        "The option '\(pair)' in '\(string)' is not NAME=VALUE.")
                }
                options[String(parts[0])] = String(parts[1]).removingPercentEncoding ?? String(parts[1])
            }
        }
        self.options = options
    }

    public var description: String {
        scheme + ":" + path + (options.isEmpty ? "" : "?" + options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&"))
    }

    /// The path, which must not be empty.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration``.
    public func requirePath(_ what: String) throws -> String {
        guard !path.isEmpty else {
            throw DataStoreError(.invalidConfiguration, "'\(self)' names no \(what): write \(scheme):\(what.uppercased()).")
        }
        return path
    }

    /// An integer option, `nil` when absent.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration`` when present but not a whole number.
    public func integer(_ name: String) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text) else {
            throw DataStoreError(.invalidConfiguration, "The option \(name)=\(text) in '\(self)' must be a whole number.")
        }
        return value
    }

    /// A duration option, `nil` when absent: seconds, or a number with `s`, `m`, `h` or `d`.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration`` when present but not a duration.
    public func duration(_ name: String) throws -> TimeInterval? {
        guard let text = options[name] else { return nil }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let number = Double(text.dropLast()) { return number * unit }
        if let seconds = Double(text) { return seconds }
        throw DataStoreError(.invalidConfiguration, "The option \(name)=\(text) in '\(self)' must be a duration such as 90s, 12h or 30d.")
    }

    /// Throws when an option is not one of `known`, so that a misspelt option is not ignored.
    public func allowOnly(_ known: Set<String>) throws {
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw DataStoreError(.invalidConfiguration,
                "'\(self)' has the unknown option '\(unknown)'; \(scheme) stores take: \(known.sorted().joined(separator: ", ")).")
        }
    }
}
