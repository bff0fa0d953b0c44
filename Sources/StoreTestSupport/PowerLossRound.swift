import Foundation

// Fault injection exists in debug builds only (see `FileFaults`), as do the tests that use this.
#if DEBUG
/// The scaffolding of one round of a store's power-loss test, the same for every store: the
/// simulator under the round's directory, how its rewinds lose data (drawn once a round), the
/// count of where the power went, a second power loss in a third of the rounds, and the last
/// reopening. What the store does, where the power went, and what the store must read back are
/// the test's.
public struct PowerLossRound {
    public let directory: URL
    public let sabotage: PowerLossSimulator.Sabotage
    /// What the power loss may do to what was not flushed.
    public let model: PowerLossSimulator.Model
    /// How likely each unflushed operation is lost at a rewind, and whether a rewind garbles the
    /// last block of a file's last unflushed write.
    public let lossProbability: Double
    public let garbles: Bool
    /// The first power loss's simulator, started.
    public let simulator: PowerLossSimulator

    /// Draws how the rewinds lose data, and starts a simulator that loses the power at operation
    /// `crashAt` in `directory`.
    public init(directory: URL, crashAt: Int, sabotage: PowerLossSimulator.Sabotage, model: PowerLossSimulator.Model = .fromEnvironment,
                using generator: inout SeededGenerator) {
        self.directory = directory
        self.sabotage = sabotage
        self.model = model
        lossProbability = [0, 0.5, 1, Double.random(in: 0...1, using: &generator)].randomElement(using: &generator)!
        garbles = Bool.random(using: &generator)
        simulator = PowerLossSimulator(directory: directory, crashAt: crashAt, sabotage: sabotage, model: model)
        simulator.start()
    }

    /// The store's process is gone, the power having gone during `phase`: counts the round and
    /// the phase, and rewinds the files to what the disk could hold.
    public func powerLoss(during phase: String, using generator: inout SeededGenerator,
                          into tally: inout PowerLossTally) -> PowerLossSimulator.Report {
        tally.rounds += 1
        tally.phases[phase, default: 0] += 1
        let report = simulator.powerLoss(using: &generator, lossProbability: lossProbability, garbles: garbles)
        tally.add(report)
        return report
    }

    /// In a third of the rounds (a draw from `generator`), the power goes again, at one of the
    /// next 10 file operations, while `recover` reopens the store, checks what it reads back and
    /// makes one more save; then the files are rewound again.
    ///
    /// `recover` returns `false` when it recorded a failure; an error it throws is the second
    /// power loss (counted as one while recovering) or, when the power did not go, a failed
    /// reopening (recorded, with `context`, the round's description). Returns `nil` when the round
    /// is over, else what to add to its description: the second power loss, with `state()` after
    /// the operation it hit, and what its rewind did ("" in the rounds without one).
    public func secondPowerLoss(
        using generator: inout SeededGenerator, into tally: inout PowerLossTally, round context: String,
        state: () -> String = { "" },
        recover: (_ simulator: PowerLossSimulator, _ generator: inout SeededGenerator, _ tally: inout PowerLossTally) throws -> Bool
    ) -> String? {
        guard Int.random(in: 0..<3, using: &generator) == 0 else { return "" }
        let second = PowerLossSimulator(directory: directory, crashAt: Int.random(in: 1...10, using: &generator), sabotage: sabotage,
                                        model: model)
        second.start()
        tally.secondPowerLosses += 1
        do {
            guard try recover(second, &generator, &tally) else { return nil }
        } catch {
            if !second.hasCrashed {
                tally.failedToOpen(error, round: context)
                return nil
            }
            tally.secondDuringRecovery += 1
        }
        let report = second.powerLoss(using: &generator, lossProbability: lossProbability, garbles: garbles)
        tally.add(report)
        return "; power lost again at operation \(second.crashAt) (\(second.crashEvent ?? "none"))\(state()); \(report)"
    }
}

extension PowerLossSimulator {
    /// The operations since `mark` (an ``operationCount``), and the one the power went at.
    public func eventsThroughCrash(since mark: Int) -> [String] {
        events(since: mark) + [crashEvent ?? ""]
    }
}

extension PowerLossTally {
    /// Runs `rounds` rounds into one tally, the first with `seed`, each next with the next seed.
    public static func run(rounds: Int, seed: UInt64,
                           _ round: (_ seed: UInt64, _ tally: inout PowerLossTally) throws -> Void) rethrows -> PowerLossTally {
        var tally = PowerLossTally()
        for index in 0..<rounds {
            try round(seed &+ UInt64(index), &tally)
        }
        return tally
    }

    /// Prints the tally after `title`, and with `POWERLOSS_VERBOSE` every failing round.
    public func print(as title: String) {
        Swift.print("\(title): \(self)")
        if ProcessInfo.processInfo.environment["POWERLOSS_VERBOSE"] != nil { Swift.print(failures.joined(separator: "\n")) }
    }

    /// How many rounds failed, and the first five: a test's message.
    public var failureSummary: String {
        "\(failures.count) failing rounds:\n\(failures.prefix(5).joined(separator: "\n"))"
    }

    /// The last reopening of a round: what `read` reads back, or `nil` when it fails, recorded
    /// as a failed reopening of the round `context` describes.
    public mutating func reopen<T>(round context: String, _ read: () throws -> T) -> T? {
        do {
            return try read()
        } catch {
            failedToOpen(error, round: context)
            return nil
        }
    }
}
#endif
