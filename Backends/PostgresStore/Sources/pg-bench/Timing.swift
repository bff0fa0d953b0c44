import Foundation

/// The median wall-clock time of `repetitions` runs of `body`, in milliseconds.
func medianMilliseconds(_ repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<repetitions {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// One line of the report: the three contenders and PostgresStore's ratio to plain postgres-nio.
func report(_ name: String, store: Double, plain: Double, sqlite: Double) {
    let line = [name.padding(toLength: 34, withPad: " ", startingAt: 0),
                String(format: "%10.3f", store), String(format: "%12.3f", plain), String(format: "%12.3f", sqlite),
                String(format: "%8.2fx", store / plain)].joined(separator: " ")
    print(line)
}
