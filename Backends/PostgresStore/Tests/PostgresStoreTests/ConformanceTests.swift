import Foundation
import PostgresStore
import StoreConformance
import Testing

/// The whole conformance suite, every capability, each case against a fresh namespace of the
/// test server.
let postgresTarget = ConformanceTarget(name: "PostgresStore", capabilities: .all) {
    try TestServer.configuration()
}.retaining { retention in
    try TestServer.configuration(retention: retention)
}

@Test("The test server is configured (run through Scripts/with-postgres.sh)")
func serverConfigured() {
    #expect(TestServer.isConfigured, "POSTGRES_URL is not set: run `bash Scripts/with-postgres.sh swift test`.")
}

@Test("PostgresStore conformance", .enabled(if: TestServer.isConfigured), arguments: ConformanceSuite.cases(for: postgresTarget))
func postgresConformance(_ check: ConformanceCase) async throws {
    try await check.run(postgresTarget)
}
