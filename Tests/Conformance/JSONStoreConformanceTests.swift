import Foundation
import JSONStore
import StoreConformance
import StoreProtocol
import Testing

/// Each store is a file in a folder of its case's own, which the suite removes when the case ends.
let jsonTarget = ConformanceTarget(name: "JSONStore", capabilities: .all) { location in
    JSONStoreConfiguration(url: location)
}.retaining { location, retention in
    JSONStoreConfiguration(url: location, historyRetention: retention)
}

@Test("JSONStore conformance", arguments: ConformanceSuite.cases(for: jsonTarget))
func jsonStoreConformance(_ check: ConformanceCase) async throws {
    try await check.run(jsonTarget)
}
