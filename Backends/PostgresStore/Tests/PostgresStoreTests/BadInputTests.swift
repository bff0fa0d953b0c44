import DataStores
import Logging
import PostgresNIO
import PostgresStore
import Testing

/// Wrong configurations and a database that is not the store's: typed errors with a message a
/// person can act on, and nothing changed.
@Suite("Bad input", .enabled(if: TestServer.isConfigured))
struct BadInputTests {
    func open(_ configuration: PostgresStoreConfiguration) throws -> PostgresStore {
        var configuration = configuration
        configuration.schema = Schema(PGNote.self)
        return try PostgresStore(configuration)
    }

    @Test("A wrong password is a refused login, naming the user")
    func wrongPassword() throws {
        var configuration = try TestServer.configuration()
        configuration.password = "not-the-password"
        let error = try #require(throws: DataStoreError.self) { try open(configuration) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("refused the login") && error.message.contains("user \(configuration.user)")
                && error.message.contains("password"), "\(error.message)")
    }

    @Test("An unreachable server is an I/O failure naming host and port")
    func unreachableHost() throws {
        var configuration = try TestServer.configuration()
        configuration.port = try Self.closedPort()
        configuration.connectTimeout = .seconds(3)
        let error = try #require(throws: DataStoreError.self) { try open(configuration) }
        #expect(error.code == .ioFailure)
        #expect(error.message.contains("Could not connect") && error.message.contains("\(configuration.host):\(configuration.port)"), "\(error.message)")
    }

    @Test("A missing database is a configuration error saying to create it")
    func missingDatabase() throws {
        var configuration = try TestServer.configuration()
        configuration.database = "no_such_database_here"
        let error = try #require(throws: DataStoreError.self) { try open(configuration) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("no_such_database_here") && error.message.contains("createdb"), "\(error.message)")
    }

    @Test("Malformed locations are refused with what to write", arguments: [
        "postgres://127.0.0.1:5432/db",            // no user
        "postgres://app@:5432/db",                 // no host
        "postgres://app@127.0.0.1:5432/",          // no database
        "postgres:app@127.0.0.1/db",               // not a URL
        "postgres://app@127.0.0.1/db?retention=3", // unknown option
    ])
    func malformedLocation(_ location: String) throws {
        let error = try #require(throws: DataStoreError.self) {
            try PostgresStoreConfiguration(location: StoreLocation(parsing: location))
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("postgres") || error.message.contains("option"), "\(error.message)")
    }

    @Test("A location sets every field")
    func location() throws {
        let configuration = try PostgresStoreConfiguration(location: StoreLocation(parsing:
            "postgres://app:s%40cret@db.example:6543/trips?schema=one&retention-transactions=10&read-only=true"))
        #expect(configuration.user == "app" && configuration.password == "s@cret")
        #expect(configuration.host == "db.example" && configuration.port == 6543 && configuration.database == "trips")
        #expect(configuration.namespace == "one" && configuration.historyRetention.maximumTransactions == 10 && !configuration.allowsSave)
    }

    @Test("Tables of the same names that the store did not make: refused, naming them, nothing changed")
    func foreignTables() async throws {
        let configuration = try TestServer.configuration()
        try await Self.execute(configuration, [
            "CREATE SCHEMA \(configuration.namespace)",
            "CREATE TABLE \(configuration.namespace).\"PGNote\" (title text, pages int)",
            "INSERT INTO \(configuration.namespace).\"PGNote\" VALUES ('kept', 3)",
        ])
        let error = try #require(throws: DataStoreError.self) { try open(configuration) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("\(configuration.namespace).PGNote") && error.message.contains("pages, title")
                && error.message.contains("namespace"), "\(error.message)")
        // Nothing changed: the table as it was, and no table of the store's.
        let tables = try await Self.strings(configuration,
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = '\(configuration.namespace)' ORDER BY 1")
        #expect(tables == ["PGNote"])
        let titles = try await Self.strings(configuration, "SELECT title FROM \(configuration.namespace).\"PGNote\"")
        #expect(titles == ["kept"])
    }

    @Model final class ModelWithAVeryLongEntityNameThatPostgreSQLWouldCutShortAtSixtyThreeBytes {
        init() {}
    }

    @Test("An entity name longer than PostgreSQL's 63 bytes is refused, saying what to write")
    func longEntityName() throws {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(ModelWithAVeryLongEntityNameThatPostgreSQLWouldCutShortAtSixtyThreeBytes.self)
        let error = try #require(throws: DataStoreError.self) { try PostgresStore(configuration) }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("63 bytes") && error.message.contains("entityName"), "\(error.message)")
    }

    // MARK: Helpers

    /// A TCP port on loopback where nothing listens.
    static func closedPort() throws -> Int {
        let socket = try #require(Optional(Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)))
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))   // closed again when the socket closes: nothing listens
    }

    static func connect(_ configuration: PostgresStoreConfiguration) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.user,
                                 password: configuration.password, database: configuration.database, tls: .disable),
            id: 9, logger: Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    static func execute(_ configuration: PostgresStoreConfiguration, _ statements: [String]) async throws {
        let connection = try await connect(configuration)
        for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: connection.logger) }
        try await connection.close()
    }

    static func strings(_ configuration: PostgresStoreConfiguration, _ sql: String) async throws -> [String] {
        let connection = try await connect(configuration)
        var result: [String] = []
        for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: connection.logger).decode(String.self) {
            result.append(value)
        }
        try await connection.close()
        return result
    }
}
