#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import StoreProtocol

/// One connection to the server, used from the store's synchronous methods.
///
/// `DataStore` is synchronous, postgres-nio is not. The bridge: the connection lives on an event
/// loop of NIO's shared group, and a caller waits for each statement's future
/// (`EventLoopFuture.wait()`), which parks the caller's thread, never an event loop thread (NIO
/// refuses a wait on its own threads). No Swift task is started, so a caller on the cooperative
/// thread pool cannot deadlock the pool waiting for a task that needs a thread of it.
///
/// One lock serializes the statements of this process's callers on the connection; a
/// transaction holds it from `BEGIN` to `COMMIT`. A connection the server closed (a restart) is
/// dropped, and the next call connects again.
final class PostgresSession: @unchecked Sendable {
    // @unchecked: `connection` is only touched while `lock` is held.
    private let lock = NSLock()
    private var connection: PostgresConnection?
    /// The statements prepared on `connection` (they go with it).
    private var prepared = PreparedStatements()
    /// Whether hot-path statements are prepared (``PreparedStatements``); off, they run unnamed,
    /// as the reference that tests compare with.
    var preparesStatements: Bool {
        get { lock.withLock { preparingEnabled } }
        set {
            lock.withLock {
                preparingEnabled = newValue
                prepared.enabled = newValue
                if !newValue { prepared.removeAll() }
            }
        }
    }
    private var preparingEnabled = true
    private let settings: PostgresConnection.Configuration
    let describedServer: String
    private let logger = Logger(label: "PostgresStore", factory: { _ in SwiftLogNoOpLogHandler() })

    init(_ configuration: PostgresStoreConfiguration) {
        var settings = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.user,
            password: configuration.password, database: configuration.database, tls: .disable)
        let (seconds, attoseconds) = configuration.connectTimeout.components
        settings.options.connectTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        self.settings = settings
        describedServer = "the PostgreSQL server at \(configuration.host):\(configuration.port) (database \(configuration.database), user \(configuration.user))"
    }

    deinit {
        // Closing is not waited for; the completion handler keeps the connection alive until it
        // is closed (postgres-nio requires a connection to be closed before it is released).
        if let connection {
            let closing: EventLoopFuture<Void> = connection.close()
            closing.whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Runs `body` with the connection, connecting first when there is none.
    /// - Throws: `DataStoreError` `.ioFailure` when the server cannot be reached, `.invalidConfiguration`
    ///   when it refuses the login; what `body` throws.
    func withConnection<T>(_ body: (SQLConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let connection: PostgresConnection
        if let current = self.connection, !current.isClosed {
            connection = current
        } else {
            self.connection = nil
            do {
                connection = try PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: settings, id: 1, logger: logger
                ).wait()
            } catch {
                throw PostgresErrors.map(error, server: describedServer, doing: "connect")
            }
            self.connection = connection
            prepared = PreparedStatements()
            prepared.enabled = preparingEnabled
        }
        do {
            return try body(SQLConnection(connection: connection, logger: logger, server: describedServer, prepared: prepared))
        } catch {
            if connection.isClosed { self.connection = nil }
            throw error
        }
    }

    /// How many statements are prepared on the connection (for tests).
    var preparedStatementCount: Int { lock.withLock { prepared.count } }

    /// The texts of the statements prepared on the connection (for tests).
    var preparedStatementTexts: [String] { lock.withLock { prepared.texts } }

    /// Forgets the statements prepared on the connection (after a migration: a statement whose
    /// columns changed type would fail once with SQLSTATE 0A000 before being prepared again).
    func forgetPreparedStatements() {
        lock.withLock { prepared.removeAll() }
    }

    /// A new connection of its own (for `LISTEN`, which needs a connection that stays idle).
    /// - Throws: `DataStoreError` as ``withConnection(_:)``.
    func openConnection() throws -> (PostgresConnection, SQLConnection) {
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: settings, id: 2, logger: logger
            ).wait()
            return (connection, SQLConnection(connection: connection, logger: logger, server: describedServer, prepared: nil))
        } catch {
            throw PostgresErrors.map(error, server: describedServer, doing: "connect")
        }
    }

    /// Runs `body` in one SQL transaction: `BEGIN`, then `COMMIT` when it returns (the commit is
    /// durable when it returns: the server flushes its log), `ROLLBACK` when it throws.
    /// - Throws: what `body` throws, or the commit's failure (`DataStoreError`); nothing was
    ///   changed then, except when the connection broke during `COMMIT` (the message says so).
    ///
    /// `BEGIN` is sent without waiting for its answer: the statements of `body` follow it on the
    /// connection in order, and its outcome is checked before the commit.
    func transaction<T>(_ body: (SQLConnection) throws -> T) throws -> T {
        try withConnection { sql in
            let begin = sql.send("BEGIN")
            let result: T
            do {
                result = try body(sql)
                try sql.wait(begin)
            } catch {
                try? sql.execute("ROLLBACK")
                throw error
            }
            do {
                try sql.execute("COMMIT")
            } catch var error as DataStoreError where error.code == .ioFailure {
                error.message += " The connection broke while committing: the transaction may or may not have been kept; read it back to know."
                throw error
            }
            return result
        }
    }
}

/// The connection as a transaction body sees it: statements with bound parameters, waited for.
struct SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    let server: String
    /// The connection's prepared statements; `nil` on a connection of its own (``PostgresSession/openConnection()``).
    let prepared: PreparedStatements?

    /// Runs a statement and returns its rows. Values are bound, never put into the text.
    /// - Throws: `DataStoreError` (see ``PostgresErrors/map(_:server:doing:)``).
    @discardableResult
    func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        try wait(send(sql, binds))
    }

    /// ``query(_:_:)`` of a prepared statement (``sendPrepared(_:_:)``).
    /// - Throws: `DataStoreError` (see ``PostgresErrors/map(_:server:doing:)``).
    func queryPrepared(_ sql: String, _ binds: StatementBinds) throws -> [PostgresRow] {
        try wait(sendPrepared(sql, binds))
    }

    /// A statement sent and not waited for yet (``send(_:_:)``).
    struct Sent {
        let answer: EventLoopFuture<[PostgresRow]>
        let sql: String
        /// The cache that prepared it, which forgets it when it fails for a changed table.
        var prepared: PreparedStatements? = nil
    }

    /// Sends a statement without waiting for its answer. Statements sent one after the other run
    /// in that order on the connection; the event loop sends each as soon as the one before is
    /// answered, so a save's statements cost the caller one wait instead of one per statement.
    /// Every statement sent is waited for (``wait(_:)``) before the transaction ends, so that
    /// its failure is seen.
    func send(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) -> Sent {
        Sent(answer: connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).map(\.rows), sql: sql)
    }

    /// ``send(_:_:)`` of a statement of a hot path, prepared on the connection the first time
    /// (which waits for the server's answer to the preparation, and so for every statement sent
    /// before) and executed by name after that (``PreparedStatements``). Every parameter's type
    /// must follow from the text (a cast). Read its rows' cells through ``PostgresRow/binaryCells``.
    /// Unnamed when the connection keeps no more prepared statements.
    /// - Throws: `DataStoreError` when the preparation fails (an earlier statement of the
    ///   transaction failed, or the text does not fit the tables).
    func sendPrepared(_ sql: String, _ binds: StatementBinds) throws -> Sent {
        let statement: PreparedQuery?
        do {
            statement = try prepared?.statement(sql, on: connection, server: server)
        } catch {
            throw PostgresErrors.map(error, server: server, doing: "prepare `\(sql.prefix(120))`")
        }
        guard let statement else { return send(sql, binds.bindings) }
        return Sent(answer: statement.execute(binds.values), sql: sql, prepared: prepared)
    }

    /// A sent statement's rows.
    /// - Throws: `DataStoreError` (see ``PostgresErrors/map(_:server:doing:)``).
    @discardableResult
    func wait(_ statement: Sent) throws -> [PostgresRow] {
        do {
            return try Self.wait(for: statement.answer, closing: connection, server: server)
        } catch {
            statement.prepared?.forget(statement.sql, after: error)
            throw PostgresErrors.map(error, server: server, doing: "run `\(statement.sql.prefix(120))`")
        }
    }

    /// How long a statement may go without an answer before the connection is given up.
    static let answerTimeout: DispatchTimeInterval = .seconds(60)
    /// How often a wait checks whether the connection closed under it.
    static let closePollInterval: DispatchTimeInterval = .milliseconds(100)

    /// Waits for a future from a thread that is not the event loop's; after ``answerTimeout``
    /// without an answer (a server that vanished without closing the socket), closes the
    /// connection and throws, so that a caller never waits forever.
    static func wait<Value: Sendable>(for future: EventLoopFuture<Value>, closing connection: PostgresConnection, server: String) throws -> Value {
        let done = DispatchSemaphore(value: 0)
        let outcome = NSLockedValue<Result<Value, any Error>?>(nil)
        future.whenComplete { result in
            outcome.value = result
            done.signal()
        }
        // A statement sent as the server closes the connection was seen never to complete
        // (postgres-nio 1.33.2): the connection's close ends the wait too. It is polled, not
        // awaited through `closeFuture`: a callback added there per statement would live as
        // long as the connection, a leak that grows with every statement.
        let deadline = DispatchTime.now() + answerTimeout
        var answered = false
        while !answered, DispatchTime.now() < deadline, !connection.isClosed {
            answered = done.wait(timeout: min(deadline, .now() + closePollInterval)) == .success
        }
        if !answered, outcome.value != nil { answered = true }
        guard answered || connection.isClosed else {
            let closing: EventLoopFuture<Void> = connection.close()
            closing.whenComplete { _ in withExtendedLifetime(connection) {} }
            throw DataStoreError(.ioFailure, "No answer from \(server) within \(answerTimeout); the connection was closed. Nothing was acknowledged; the store connects again on the next call.")
        }
        if let result = outcome.value { return try result.get() }
        throw DataStoreError(.ioFailure, "The connection to \(server) closed before it answered. Nothing was acknowledged; the store connects again on the next call.")
    }

    /// Runs a statement whose rows do not matter.
    func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws {
        try query(sql, binds)
    }
}
#endif
