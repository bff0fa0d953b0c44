import Foundation

/// One line of the results table: our figure beside a reference (a peer, or our own figure at
/// another size) and, where the issue sets one, the target.
struct Result {
    enum Unit {
        /// Seconds per operation; lower is better.
        case time
        /// Records per second; higher is better.
        case rate
        /// Instructions per operation, counted by callgrind (repeatable); lower is better.
        case instructions
        /// Bytes of memory; lower is better.
        case bytes
    }

    /// What a line must meet: a ratio to its reference, or an absolute figure.
    enum Target {
        /// ours ÷ reference at most this (for times) or at least this (for rates).
        case ratio(Double)
        /// At most this much, in the line's unit (seconds, instructions).
        case atMost(Double)
    }

    var area: String
    var name: String
    var unit: Unit
    var ours: Double
    var referenceName: String? = nil
    var reference: Double? = nil
    var target: Target? = nil

    var ratio: Double? { reference.map { ours / $0 } }

    /// Whether the target is met; `nil` without a target.
    var met: Bool? {
        switch target {
        case nil: return nil
        case .ratio(let limit)?:
            guard let ratio else { return nil }
            return unit == .rate ? ratio >= limit : ratio <= limit
        case .atMost(let limit)?:
            return ours <= limit
        }
    }

    var targetText: String {
        switch target {
        case nil: return ""
        case .ratio(let limit)?: return (unit == .rate ? "≥ " : "≤ ") + Self.format(ratio: limit)
        case .atMost(let limit)?: return "≤ " + Self.format(limit, unit)
        }
    }

    static func format(_ value: Double, _ unit: Unit) -> String {
        switch unit {
        case .rate:
            return value >= 1e6 ? String(format: "%.2f M rec/s", value / 1e6) : String(format: "%.0f rec/s", value)
        case .time:
            if value >= 1 { return String(format: "%.2f s", value) }
            if value >= 1e-3 { return String(format: "%.2f ms", value * 1e3) }
            if value >= 1e-6 { return String(format: "%.2f µs", value * 1e6) }
            return String(format: "%.2f ns", value * 1e9)
        case .instructions:
            return "\(Int(value.rounded()).grouped) instr"
        case .bytes:
            return String(format: "%.1f MiB", value / 1_048_576)
        }
    }

    static func format(ratio: Double) -> String {
        ratio >= 10 ? String(format: "%.0f×", ratio) : String(format: "%.2f×", ratio)
    }
}

/// Prints results as a Markdown table, so the README can take it as it is.
func printTable(_ results: [Result]) {
    print("| area | benchmark | ours | reference | ratio | target | met |")
    print("|---|---|---:|---|---:|---|:---:|")
    for result in results {
        let reference = result.reference.map { "\(result.referenceName ?? ""): \(Result.format($0, result.unit))" } ?? ""
        let met = result.met.map { $0 ? "yes" : "**no**" } ?? ""
        print("| \(result.area) | \(result.name) | \(Result.format(result.ours, result.unit)) | \(reference) | "
              + "\(result.ratio.map(Result.format(ratio:)) ?? "") | \(result.targetText) | \(met) |")
    }
}

/// Progress on standard error, so the table on standard output stays clean.
func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
