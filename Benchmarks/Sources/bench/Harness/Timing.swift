import Dispatch

/// Seconds taken by `body`, on the monotonic clock.
func seconds(_ body: () throws -> Void) throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The median of timed runs of `body`: at least `minimum` runs, then more until `count` runs or
/// `budget` seconds have gone, whichever comes first. `setUp` runs before each timed run, untimed.
///
/// A budget keeps slow peers (rewriting a 14 MB file per save) from taking the whole run while
/// fast ones still get many samples.
func median(
    runs count: Int, minimum: Int = 3, budget: Double = .infinity,
    setUp: () throws -> Void = {}, _ body: () throws -> Void
) throws -> Double {
    var samples: [Double] = []
    var spent = 0.0
    while samples.count < count, samples.count < minimum || spent < budget {
        try setUp()
        let sample = try seconds(body)
        samples.append(sample)
        spent += sample
    }
    return middle(samples)
}

/// The median of samples already taken.
func middle(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    let half = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2
}

/// Time per operation of a fast operation: `operations` calls timed together, the median of `runs`.
func medianPerOperation(runs: Int, operations: Int, _ body: (Int) throws -> Void) throws -> Double {
    try median(runs: runs) {
        for index in 0..<operations { try body(index) }
    } / Double(operations)
}

/// The median of `count` timed runs of `body`, each after an untimed `setUp`, whose result
/// `check` then verifies, untimed: for an operation whose outcome must be checked on every run
/// (a migration that silently failed would time nothing worth reporting).
func median<Outcome>(
    runs count: Int, setUp: () throws -> Void, _ body: () throws -> Outcome, check: (Outcome) throws -> Void
) throws -> Double {
    var samples: [Double] = []
    for _ in 0..<count {
        try setUp()
        var outcome: Outcome?
        samples.append(try seconds { outcome = try body() })
        guard let outcome else { throw BenchCheckFailed("a timed run returned nothing") }
        try check(outcome)
    }
    return middle(samples)
}
