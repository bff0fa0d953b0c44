import Foundation

/// One run of the stress tool (`StoreTestHelper stress`): writers on one store killed at random
/// instants, each store reopened and compared with what was acknowledged.
public struct StressRun {
    /// The tool's exit status: 0 when nothing was lost, altered, half-saved or unreadable.
    public let status: Int32
    public let lines: [String]

    /// Runs `rounds` rounds of `writers` writers on a `kind` store ("json" or "log"); with
    /// `sabotage`, the writers acknowledge each save before making it (the negative control).
    public init(_ kind: String, rounds: Int, writers: Int = 1, sabotage: Bool = false) throws {
        let child = try ChildProcess(["stress", kind, try temporaryDirectory().path, "\(rounds)", "\(writers)"]
                                     + (sabotage ? ["sabotage"] : []))
        status = child.finish()
        lines = child.lines
    }

    /// The figure named `label` in the summary (`lost saves 0` → `figure("lost saves")`).
    public func figure(_ label: String) -> Int? {
        for line in lines.suffix(2) {
            guard let range = line.range(of: label + " ") ?? line.range(of: label + ": ") else { continue }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }

    /// The figures of a clean run.
    public var isClean: Bool {
        status == 0 && ["corrupt stores", "lost saves", "half transactions", "history mismatches"].allSatisfy { figure($0) == 0 }
    }

    /// The rare paths the rounds took, as the tool counted them, for failure messages.
    public var summary: String { lines.suffix(4).joined(separator: "\n") }
}
