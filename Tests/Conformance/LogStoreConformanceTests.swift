import Foundation
import LogStore
import StoreConformance
import StoreProtocol
import Testing

/// An insert-only store: the update and delete cases are replaced by their refusal cases.
let logTarget = ConformanceTarget(name: "LogStore", capabilities: [.history, .persistence]) {
    let directory = FileManager.default.temporaryDirectory
        .appending(path: "log-conformance-\(ProcessInfo.processInfo.processIdentifier)/\(UUID().uuidString)")
    return LogStoreConfiguration(directory: directory, timestamps: [LogTimestamp(\SuiteReading.timestamp)], segmentSize: 4_096)
}

@Test("LogStore conformance", arguments: ConformanceSuite.cases(for: logTarget))
func logStoreConformance(_ check: ConformanceCase) async throws {
    try await check.run(logTarget)
}
