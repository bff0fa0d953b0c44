import Foundation
import LogStore
import StoreConformance
import StoreProtocol
import Testing

/// An insert-only store: the update and delete cases are replaced by their refusal cases.
/// Each store is a folder in a folder of its case's own, which the suite removes when the case ends.
let logTarget = ConformanceTarget(name: "LogStore", capabilities: [.history, .persistence]) { location in
    LogStoreConfiguration(directory: location, timestamps: [LogTimestamp(\SuiteReading.timestamp)], segmentSize: 4_096)
}

@Test("LogStore conformance", arguments: ConformanceSuite.cases(for: logTarget))
func logStoreConformance(_ check: ConformanceCase) async throws {
    try await check.run(logTarget)
}
