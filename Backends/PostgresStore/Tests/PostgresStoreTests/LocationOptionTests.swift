import Foundation
import PostgresStore
import StoreProtocol
import Testing

/// What a `postgres://` location may hold and how its mistakes are reported: never with the
/// password, never by trapping, never by reading an option as its opposite (issue 28).
@Suite("Location options")
struct LocationOptionTests {
    static let password = "hunter2-SECRET"

    @Test("Configuration errors never show the password", arguments: [
        "postgres://app:\(password)@:5432/db",                                // no host
        "postgres://app:\(password)@127.0.0.1:5432/",                         // no database
        "postgres://app:\(password)@127.0.0.1/db?bogus=1",                    // unknown option
        "postgres://app:\(password)@127.0.0.1/db?connect-timeout=soon",       // bad timeout
        "postgres://app:\(password)@127.0.0.1/db?connect-timeout=nan",        // bad timeout
        "postgres://app:\(password)@127.0.0.1/db?retention-transactions=x",   // bad retention
        "postgres://app:\(password)@127.0.0.1/db?retention-age=forever",      // bad retention
        "postgres://app:\(password)@127.0.0.1/db?read-only=maybe",            // bad flag
        "postgres:app:\(password)@127.0.0.1/db",                              // not a URL
        "postgres://app:\(password)@127.0.0.1/db?novalue",                    // not NAME=VALUE
        "postgres://app:\(password)@127.0.0.1/db?password=\(password)",       // a password option
    ])
    func passwordsAreRedacted(_ location: String) throws {
        let error = try #require(throws: DataStoreError.self) {
            try PostgresStoreConfiguration(location: StoreLocation(parsing: location))
        }
        #expect(error.code == .invalidConfiguration)
        for text in [error.message, "\(error)", String(reflecting: error)] {
            #expect(!text.contains(Self.password), "\(text)")
        }
        #expect(error.message.contains("***") || error.message.contains("app"), "\(error.message)")
    }

    @Test("A configuration's description, debug description and dump never show the password")
    func configurationDescriptions() throws {
        let configuration = try PostgresStoreConfiguration(location: StoreLocation(parsing: "postgres://app:\(Self.password)@db.example/trips"))
        #expect(configuration.password == Self.password)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [String(describing: configuration), String(reflecting: configuration), dumped] {
            #expect(!text.contains(Self.password) && text.contains("db.example"), "\(text)")
        }
    }

    @Test("Timeouts that are not a finite, positive number of seconds up to a day are refused", arguments: [
        "nan", "inf", "-inf", "infinity", "1e10", "1e300", "-5", "0", "2d",
    ])
    func badTimeouts(_ timeout: String) throws {
        let error = try #require(throws: DataStoreError.self) {
            try PostgresStoreConfiguration(location: StoreLocation(parsing: "postgres://app@127.0.0.1/db?connect-timeout=\(timeout)"))
        }
        #expect(error.code == .invalidConfiguration && error.message.contains("connect-timeout"), "\(error.message)")
    }

    @Test("A timeout set in code that no connection can wait is refused when the store opens", arguments: [
        Duration.seconds(Int64.max), .seconds(-1), .zero, .seconds(86_401),
    ])
    func badTimeoutInCode(_ timeout: Duration) throws {
        var configuration = PostgresStoreConfiguration(user: "app", database: "db", schema: Schema(PGNote.self), connectTimeout: timeout)
        configuration.port = 1   // never reached: the timeout is refused first
        let error = try #require(throws: DataStoreError.self) { try PostgresStore(configuration) }
        #expect(error.code == .invalidConfiguration && error.message.contains("connectTimeout"), "\(error.message)")
    }

    @Test("read-only takes true/false, yes/no, 1/0 in any case; anything else is refused", arguments: [
        ("true", false), ("TRUE", false), ("True", false), ("yes", false), ("YES", false), ("1", false),
        ("false", true), ("FALSE", true), ("no", true), ("0", true),
    ])
    func readOnlySpellings(_ value: String, _ allowsSave: Bool) throws {
        let configuration = try PostgresStoreConfiguration(location: StoreLocation(parsing: "postgres://app@127.0.0.1/db?read-only=\(value)"))
        #expect(configuration.allowsSave == allowsSave, "read-only=\(value)")
    }

    @Test("An unreadable read-only value is refused, never read as writable", arguments: ["maybe", "on", "t", ""])
    func unreadableReadOnly(_ value: String) throws {
        #expect(throws: DataStoreError.invalidConfiguration) {
            try PostgresStoreConfiguration(location: StoreLocation(parsing: "postgres://app@127.0.0.1/db?read-only=\(value)"))
        }
    }
}
