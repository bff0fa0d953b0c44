import Foundation

/// A store named by a string, for configuration files and environment variables:
/// `scheme:path?option=value&option=value`, such as `json:/data/trips.json`,
/// `log:/data/readings?retention-age=30d` or `memory:preview`.
///
/// Its `description`, and every error it throws, show a password in the location (the
/// `PASSWORD` of `//USER:PASSWORD@HOST`, the value of an option named like `password`, `secret`
/// or `token`) as `***`, so that they can be logged; ``path`` and ``options`` keep it.
public struct StoreLocation: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
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
                "'\(Self.redactingCredentials(string))' is not a store location: write SCHEME:PATH, for example json:trips.json or memory:preview.")
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
                    // A password holding `?` or `&` splits the location there: then the pair is
                    // a piece of it, and only the redacted whole is shown.
                    let redacted = Self.redactingCredentials(string)
                    throw DataStoreError(.invalidConfiguration,
                        (redacted == string ? "The option '\(pair)'" : "An option") + " in '\(redacted)' is not NAME=VALUE.")
                }
                options[String(parts[0])] = String(parts[1]).removingPercentEncoding ?? String(parts[1])
            }
        }
        self.options = options
    }

    /// The location as written (options sorted by name), with any password shown as `***`.
    public var description: String {
        Self.redactingCredentials(scheme + ":" + path)
            + (options.isEmpty ? "" : "?" + options.sorted { $0.key < $1.key }.map { "\($0.key)=\(displayed(option: $0.key))" }.joined(separator: "&"))
    }

    /// What `dump` and the debugger show: the parts as ``description`` shows them.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "scheme": scheme, "path": Self.redactingCredentials(path),
            "options": Dictionary(uniqueKeysWithValues: options.keys.map { ($0, displayed(option: $0)) }),
        ])
    }

    /// An option's value as messages show it: `***` for a secret.
    private func displayed(option name: String) -> String {
        Self.isSecret(option: name) ? "***" : (options[name] ?? "")
    }

    /// Whether an option's value is a secret by its name.
    private static func isSecret(option name: String) -> Bool {
        let lowered = name.lowercased()
        return ["password", "passwd", "secret", "token"].contains { lowered.contains($0) }
    }

    /// `text` (a location, or part of one) with its password replaced by `***`: the part between
    /// the `:` after the user and the last `@` of an authority (`//USER:PASSWORD@HOST`, or
    /// `SCHEME:USER:PASSWORD@HOST` written without the slashes), and the values of options named
    /// like a secret. Where `@` is ambiguous (an option value holding one), more is hidden rather
    /// than less.
    static func redactingCredentials(_ text: String) -> String {
        var text = text
        let authority = text.range(of: "//")?.upperBound ?? text.firstIndex(of: ":").map { text.index(after: $0) } ?? text.startIndex
        if let at = text[authority...].lastIndex(of: "@"), let colon = text[authority..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        guard let query = text.firstIndex(of: "?") else { return text }
        let pairs = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "="), isSecret(option: String(pair[..<equals])) else { return String(pair) }
            return String(pair[...equals]) + "***"
        }
        return String(text[...query]) + pairs.joined(separator: "&")
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
            throw DataStoreError(.invalidConfiguration, "The option \(name)=\(displayed(option: name)) in '\(self)' must be a whole number.")
        }
        return value
    }

    /// A duration option, `nil` when absent: seconds, or a number with `s`, `m`, `h` or `d`;
    /// finite and not negative.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration`` when present but not such a
    ///   duration (`nan`, `inf`, `-5s`, `12x`).
    public func duration(_ name: String) throws -> TimeInterval? {
        guard let text = options[name] else { return nil }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var seconds: Double?
        if let unit = text.last.flatMap({ units[$0] }), let number = Double(text.dropLast()) {
            seconds = number * unit
        } else {
            seconds = Double(text)
        }
        guard let seconds, seconds.isFinite, seconds >= 0 else {
            throw DataStoreError(.invalidConfiguration,
                "The option \(name)=\(displayed(option: name)) in '\(self)' must be a duration such as 90s, 12h or 30d (a finite number, not negative).")
        }
        return seconds
    }

    /// A yes-or-no option, `nil` when absent: `true`, `yes`, `1` or `false`, `no`, `0`, in any
    /// case. Every store's `read-only` option is read here, so that all take the same spellings.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration`` for any other value, rather than
    ///   guess (a misread `read-only` would give a writable store).
    public func boolean(_ name: String) throws -> Bool? {
        guard let text = options[name] else { return nil }
        switch text.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default:
            throw DataStoreError(.invalidConfiguration,
                "The option \(name)=\(displayed(option: name)) in '\(self)' must be true or false (also yes/no, 1/0).")
        }
    }

    /// Throws when an option is not one of `known`, so that a misspelt option is not ignored.
    public func allowOnly(_ known: Set<String>) throws {
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw DataStoreError(.invalidConfiguration,
                "'\(self)' has the unknown option '\(unknown)'; \(scheme) stores take: \(known.sorted().joined(separator: ", ")).")
        }
    }
}
