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

/// Two rows whose unique attribute is NaN are both stored, as in MemoryStore: a NaN is `==` to
/// nothing, so its `_uN` is `NULL`, which the `EXCLUDE` constraint never matches (it was the
/// JSON of the canonical value, the same text for every NaN, and PostgreSQL refused the second row).
@Test("A NaN never collides on a unique constraint", .enabled(if: TestServer.isConfigured))
func aNaNNeverCollidesOnAUniqueConstraint() async throws {
    let check = try #require(ConformanceSuite.cases(for: postgresTarget).first { $0.name == "aNaNNeverCollidesOnAUniqueConstraint" })
    try await check.run(postgresTarget)
}
