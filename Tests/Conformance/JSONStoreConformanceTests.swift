import Foundation
import JSONStore
import StoreConformance
import StoreProtocol
import Testing

/// Each case gets a store file of its own in a directory for this test run.
let jsonTarget = ConformanceTarget(name: "JSONStore", capabilities: .all) {
    JSONStoreConfiguration(url: try freshJSONStoreURL())
}.retaining { retention in
    JSONStoreConfiguration(url: try freshJSONStoreURL(), historyRetention: retention)
}

/// A new file name in a directory for this test run.
func freshJSONStoreURL() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appending(path: "json-conformance-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appending(path: "\(UUID().uuidString).json")
}

@Test("JSONStore conformance", arguments: ConformanceSuite.cases(for: jsonTarget))
func jsonStoreConformance(_ check: ConformanceCase) async throws {
    try await check.run(jsonTarget)
}
