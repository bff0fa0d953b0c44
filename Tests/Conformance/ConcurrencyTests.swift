import Foundation
import StoreConformance
import StoreProtocol
import StoreTestSupport
import Testing

/// Failure testing (issue 7): 8 tasks × 1,000 saves through separate contexts on one container,
/// for every backend (inserts, which every backend takes). Also run under ThreadSanitizer by CI.
@Test(.enabled(if: FullTestRun.isEnabled), arguments: [memoryTarget, jsonTarget, logTarget])
func eightTasksSavingAThousandTimesEachLoseNothing(_ target: ConformanceTarget) async throws {
    let container = try ModelContainer(for: ConformanceModels.schema, configurations: [target.makeConfiguration()])
    // CONCURRENCY_SAVES scales it down under ThreadSanitizer, which finds races at any count.
    let tasks = 8, saves = ProcessInfo.processInfo.environment["CONCURRENCY_SAVES"].flatMap(Int.init) ?? 1_000
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            group.addTask {
                for save in 0..<saves {
                    let context = ModelContext(container)
                    context.author = "task\(task)"
                    context.insert(SuiteReading(sensor: "t\(task)", timestamp: Date(timeIntervalSince1970: Double(save)), value: Double(save)))
                    try context.save()
                }
            }
        }
        try await group.waitForAll()
    }
    #expect(try ModelContext(container).fetchCount(FetchDescriptor<SuiteReading>()) == tasks * saves)
    let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    #expect(transactions.map(\.transactionIdentifier) == Array(1...Int64(tasks * saves)), "none lost, tokens strictly increasing")
    let tokens = transactions.map(\.token)
    #expect(zip(tokens, tokens.dropFirst()).allSatisfy { $0 < $1 })
    for task in 0..<tasks {
        let author = "task\(task)"
        #expect(transactions.filter { $0.author == author }.count == saves, "transactions by \(author)")
    }
}
