import Foundation
import JSONStore
import StoreConformance
import Testing

// The sample that the StoreConformance landing page and the "Writing a backend" article give a
// backend author, as written there (`Tools/docs/check-samples.py` checks it line for line), run
// on JSONStore standing in for "MyStore": the whole suite, as an author's test target runs it.

typealias MyStoreConfiguration = JSONStoreConfiguration

let target = ConformanceTarget(name: "MyStore", capabilities: .all) { location in
    MyStoreConfiguration(url: location)
}

@Test(arguments: ConformanceSuite.cases(for: target))
func conformance(_ check: ConformanceCase) async throws { try await check.run(target) }
