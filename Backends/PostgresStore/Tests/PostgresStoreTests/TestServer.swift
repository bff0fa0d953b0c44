import Foundation
import PostgresStore
import StoreProtocol

/// The server the tests use: `POSTGRES_URL`, which `Scripts/with-postgres.sh` exports.
enum TestServer {
    static let url: String? = ProcessInfo.processInfo.environment["POSTGRES_URL"]
    static var isConfigured: Bool { url != nil }

    /// A configuration of the test server in a namespace of its own (a fresh store).
    static func configuration(namespace: String = freshNamespace(), retention: HistoryRetention = .unlimited) throws -> PostgresStoreConfiguration {
        guard let url else { throw DataStoreError(.invalidConfiguration, "POSTGRES_URL is not set: run the tests through Scripts/with-postgres.sh.") }
        var configuration = try PostgresStoreConfiguration(location: StoreLocation(parsing: url))
        configuration.namespace = namespace
        configuration.historyRetention = retention
        return configuration
    }

    /// A namespace no other test uses.
    static func freshNamespace() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }
}
