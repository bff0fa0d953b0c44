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

/// The median wall-clock times of `repetitions` runs of each of `bodies`, in milliseconds, the
/// contenders taking turns within each repetition (`bodies[0]`, `bodies[1]`, …, then again): on
/// a shared, loaded machine a burst of load then falls on every contender alike, where timing one
/// contender's runs after the other's put a burst on one side only.
func interleavedMedians(_ repetitions: Int, _ bodies: [(Int) throws -> Void]) throws -> [Double] {
    var samples = Array(repeating: [Double](), count: bodies.count)
    for repetition in 0..<repetitions {
        for (contender, body) in bodies.enumerated() {
            let start = ContinuousClock.now
            try body(repetition)
            let elapsed = ContinuousClock.now - start
            samples[contender].append(Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15)
        }
    }
    return samples.map { $0.sorted()[$0.count / 2] }
}

/// One line of the report: the three contenders and PostgresStore's ratio to plain postgres-nio.
func report(_ name: String, store: Double, plain: Double, sqlite: Double) {
    let line = [name.padding(toLength: 34, withPad: " ", startingAt: 0),
                String(format: "%10.3f", store), String(format: "%12.3f", plain), String(format: "%12.3f", sqlite),
                String(format: "%8.2fx", store / plain)].joined(separator: " ")
    print(line)
}
