/// How big and how many: the full run the README reports, or `--quick`, the same benchmarks on
/// smaller data for a check in under a minute.
struct Scale {
    let isQuick: Bool

    /// JSON store sizes for 1-record saves; the last is the one opened and fetched from.
    var jsonSizes: [Int] { isQuick ? [100, 10_000] : [100, 10_000, 100_000] }
    /// 1-record saves timed per store size.
    var saveRuns: Int { isQuick ? 30 : 200 }
    /// Runs of slow operations (opens, scans, 1M inserts).
    var slowRuns: Int { isQuick ? 1 : 3 }
    /// Runs of operations in milliseconds (ranges, predicate fetches, 1,000-record saves).
    var runs: Int { isQuick ? 5 : 11 }
    /// Records in the log store the time range is read from.
    var logRecords: Int { isQuick ? 100_000 : 1_000_000 }
    /// Models inserted into the memory store.
    var memoryRecords: Int { isQuick ? 100_000 : 1_000_000 }
    /// History sizes (transactions) the same fetch after a token runs at.
    var historySizes: [Int] { isQuick ? [100, 10_000] : [100, 100_000] }
    /// Records in the JSON store (and the GRDB table) migrated on open: the largest JSON size.
    var migrationRecords: Int { isQuick ? 10_000 : 100_000 }
    /// Records in the stores a long-lived context fetches in full (the `context` section).
    var contextRecords: Int { isQuick ? 10_000 : 100_000 }
}

extension Int {
    /// 100000 → "100,000".
    var grouped: String {
        let digits = Array(String(self))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
