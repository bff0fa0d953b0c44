import MemoryStore
import StoreConformance
import StoreProtocol
import Testing

let memoryTarget = ConformanceTarget(name: "MemoryStore", capabilities: [.history, .updates, .historyDeletion]) {
    MemoryStoreConfiguration()
}.retaining { retention in
    MemoryStoreConfiguration(historyRetention: retention)
}

@Test("MemoryStore conformance", arguments: ConformanceSuite.cases(for: memoryTarget))
func memoryStoreConformance(_ check: ConformanceCase) async throws {
    try await check.run(memoryTarget)
}

@Test func theSuiteHasEnoughCases() {
    #expect(ConformanceSuite.allCases.count >= 40)
    #expect(Set(ConformanceSuite.allCases.map(\.description)).count == ConformanceSuite.allCases.count, "case names are unique")
}
