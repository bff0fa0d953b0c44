import Foundation
import PostgresNIO
import PostgresStore
import StoreProtocol
import Testing

/// Errors keep the driver's error that caused them, and keep the rows' values out of their
/// message (which apps log): only `debugDescription` shows them (issue 28).
@Suite("Error causes", .enabled(if: TestServer.isConfigured))
struct ErrorCauseTests {
    @Test("A refused login keeps postgres-nio's error as its underlying error")
    func underlyingErrorOfALogin() throws {
        var configuration = try TestServer.configuration()
        configuration.password = "not-the-password"
        configuration.schema = Schema(PGNote.self)
        let error = try #require(throws: DataStoreError.self) { try PostgresStore(configuration) }
        #expect(error.code == .invalidConfiguration)
        let underlying = try #require(error.underlyingError as? PSQLError)
        #expect(underlying.serverInfo?[.sqlState] == "28P01")
        #expect(!error.message.contains("not-the-password") && !String(reflecting: error).contains("not-the-password"))
    }

    @Test("A unique violation the server finds: the values only in debugDescription, the server's error kept")
    func uniqueViolationFromTheServer() async throws {
        let configuration = try TestServer.configuration()
        let container = try ModelContainer(for: Schema(PGLabel.self), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(PGLabel(key: "first", label: "a"))
        try context.save()
        // Something else than the store gave the stored row another key but left its unique
        // column: the store's own check cannot see the collision, the server's constraint does.
        try await BadInputTests.execute(configuration, [
            "UPDATE \"\(configuration.namespace)\".\"PGLabel\" SET key = 'renamed', _u0 = '[\"secret-value\"]'",
        ])
        let inserting = ModelContext(container)
        inserting.insert(PGLabel(key: "secret-value", label: "b"))
        let error = try #require(throws: DataStoreError.self) { try inserting.save() }
        #expect(error.code == .constraintViolation, "\(error)")
        #expect(!error.message.contains("secret-value") && !"\(error)".contains("secret-value"), "\(error.message)")
        #expect(String(reflecting: error).contains("secret-value"), "\(String(reflecting: error))")
        let underlying = try #require(error.underlyingError as? PSQLError)
        #expect(["23505", "23P01"].contains(underlying.serverInfo?[.sqlState] ?? ""))
    }
}
