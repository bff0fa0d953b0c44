import Foundation
import PostgresStore
import StoreConformance
import Testing

/// The conformance cases of keys Swift finds equal (also run by the whole suite), by themselves:
/// a `String` id saved precomposed and then decomposed, a `Double` id `0.0` and then `-0.0`, are
/// one row (issue 28: `_pk` held each spelling, and both rows answered an equality fetch).
@Test("Keys Swift finds equal are one row", .enabled(if: TestServer.isConfigured),
      arguments: ConformanceSuite.cases(for: postgresTarget).filter { $0.area == "keys" })
func keysSwiftFindsEqualAreOneRow(_ check: ConformanceCase) async throws {
    try await check.run(postgresTarget)
}
