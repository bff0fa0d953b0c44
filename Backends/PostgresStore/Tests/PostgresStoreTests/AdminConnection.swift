import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import PostgresStore

/// A connection of the test's own to the test server, beside the stores' (to watch the lock
/// table and end other connections), used from synchronous code: each statement is waited for.
final class AdminConnection: @unchecked Sendable {
    // @unchecked: the connection is only used by one thread at a time (the test's, or a fault thread's, in turn).
    let connection: PostgresConnection
    private let logger = Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })

    init(_ configuration: PostgresStoreConfiguration, database: String? = nil) throws {
        connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.user,
                                 password: configuration.password, database: database ?? configuration.database, tls: .disable),
            id: 9, logger: logger).wait()
    }

    deinit {
        let connection = connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// The first column of each row, as 64-bit integers.
    func integers(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [Int64] {
        try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait().map { try $0.decode(Int64.self) }
    }

    /// Runs a statement whose rows do not matter.
    func execute(_ sql: String) throws {
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
    }

    /// The condition on `pg_locks` rows of the advisory lock of `withExclusiveAccess` on the
    /// store in `namespace` (bound as $1).
    static let exclusiveLockCondition = """
        locktype = 'advisory' AND objsubid = 1 \
        AND classid::bigint = (hashtextextended('PostgresStore.exclusive:' || $1, 0) >> 32) & 4294967295 \
        AND objid::bigint = hashtextextended('PostgresStore.exclusive:' || $1, 0) & 4294967295
        """

    /// The backend processes holding (`granted`) or waiting for the exclusive access of the store in `namespace`.
    func exclusiveLockProcesses(namespace: String, granted: Bool) throws -> [Int64] {
        var binds = PostgresBindings()
        binds.append(namespace)
        return try integers("SELECT pid::bigint FROM pg_locks WHERE \(Self.exclusiveLockCondition) AND granted = \(granted)", binds)
    }

    /// Ends the connection of backend `process` (`pg_terminate_backend`) and waits until it is gone.
    func terminate(process: Int64) throws {
        var binds = PostgresBindings()
        binds.append(process)
        _ = try integers("SELECT pg_terminate_backend($1::int, 10000)::int::bigint", binds)
    }
}
