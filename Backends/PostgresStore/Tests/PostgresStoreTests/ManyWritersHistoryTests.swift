import Foundation
import Testing

/// 8 writer processes × 500 saves on one store, and a reader process following history tokens:
/// every transaction is seen once, in strictly increasing order.
///
/// `PG_MULTIWRITER_ROUNDS` (default 1) repeats the whole run; `PG_MULTIWRITER_SAVES` changes the
/// saves per writer (default 500).
@Suite("Many writers, one history", .serialized, .enabled(if: TestServer.isConfigured))
struct ManyWritersHistoryTests {
    static let writers = 8
    static let saves = Int(ProcessInfo.processInfo.environment["PG_MULTIWRITER_SAVES"] ?? "") ?? 500
    static let rounds = Int(ProcessInfo.processInfo.environment["PG_MULTIWRITER_ROUNDS"] ?? "") ?? 1

    /// What the reader saw.
    struct Outcome: CustomStringConvertible {
        var seen = 0, duplicates = 0, nonIncreasing = 0, transactions = 0
        var description: String { "seen \(seen), duplicates \(duplicates), non-increasing \(nonIncreasing), transactions \(transactions)" }
    }

    /// One run: a reader, then the writers at once; when they are done, the reader finishes.
    static func run(unordered: Bool) throws -> Outcome {
        let url = try #require(TestServer.url)
        let namespace = TestServer.freshNamespace()
        let reader = try HelperProcess(["read", url, namespace])
        #expect(reader.nextLine() == "ready")
        let writers = try (0..<writers).map { writer in
            try HelperProcess(["write", url, namespace, String(writer), String(saves)] + (unordered ? ["--unordered"] : []))
        }
        for writer in writers {
            #expect(writer.nextLine() == "saved \(saves)")
            #expect(writer.wait() == 0)
        }
        try reader.closeInput()
        let summary = try #require(reader.nextLine())
        #expect(reader.wait() == 0)
        let numbers = summary.split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 4, "reader said: \(summary)")
        return Outcome(seen: numbers[0], duplicates: numbers[1], nonIncreasing: numbers[2], transactions: numbers[3])
    }

    @Test("8 writer processes × 500 saves, a reader following tokens: 0 missed, 0 duplicated, increasing")
    func manyWriters() throws {
        for round in 1...Self.rounds {
            let outcome = try Self.run(unordered: false)
            print("many writers, round \(round) of \(Self.rounds): \(outcome)")
            let expected = Self.writers * Self.saves
            #expect(outcome.seen == expected, "round \(round): missed \(expected - outcome.seen) (\(outcome))")
            #expect(outcome.duplicates == 0, "round \(round): \(outcome)")
            #expect(outcome.nonIncreasing == 0, "round \(round): \(outcome)")
            #expect(outcome.transactions == expected, "round \(round): \(outcome)")
        }
    }

    /// The negative control: numbers from a sequence without the commit-order lock. A number
    /// taken before another can commit after it, and the reader, past the later one, misses it.
    @Test("Negative control: numbering without the lock loses transactions, and the test sees it")
    func sabotagedNumberingIsCaught() throws {
        let outcome = try Self.run(unordered: true)
        print("negative control (numbers without the lock): \(outcome)")
        let expected = Self.writers * Self.saves
        #expect(outcome.seen < expected || outcome.nonIncreasing > 0 || outcome.duplicates > 0,
                "the sabotaged numbering went unnoticed: \(outcome)")
    }
}
