import Foundation

/// Whether this `swift test` is the full run: `DATASTORES_FULL_TESTS=1` in the environment, which
/// CI (`.ci/run`) sets. Without it, `swift test` is the quick run a developer makes after a change:
/// the harnesses that repeat a scenario hundreds of times (kill rounds, power loss, damaged files,
/// value round trips, the many-saves concurrency runs, each with its negative control) and the
/// conformance suite's negative controls (each broken store runs the whole suite) are skipped with
/// `.enabled(if: FullTestRun.isEnabled)`, and everything else runs: every backend's conformance
/// suite, and the single-scenario and regression tests of crashes, power loss and damaged files.
public enum FullTestRun {
    /// The environment variable that asks for the full run.
    public static let variable = "DATASTORES_FULL_TESTS"

    /// True when `DATASTORES_FULL_TESTS` is set to anything but `0` or the empty string.
    public static var isEnabled: Bool {
        guard let value = ProcessInfo.processInfo.environment[variable] else { return false }
        return !value.isEmpty && value != "0"
    }
}
