#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import StoreProtocol

/// A store kept in a PostgreSQL database: where the server is, who connects, and which
/// PostgreSQL schema (namespace) holds the store's tables.
///
/// ```swift
/// let configuration = PostgresStoreConfiguration(host: "db.internal", user: "app", password: secret, database: "trips")
/// // or, in a configuration file: postgres://app:secret@db.internal:5432/trips?schema=trips
/// ```
///
/// Several processes on several machines may open the same configuration: they share the rows and
/// one history.
///
/// Its `description`, `debugDescription` and `dump` show the password as `***`, so that a
/// configuration can be logged.
public struct PostgresStoreConfiguration: DataStoreConfiguration, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The store this configuration opens.
    public typealias Store = PostgresStore

    /// A name for the store, used in messages.
    public var name: String
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The role to connect as.
    public var user: String
    /// The role's password; `nil` for a server that asks for none.
    public var password: String?
    /// The database to connect to.
    public var database: String
    /// The PostgreSQL schema (namespace) that holds the store's tables; created when missing.
    /// Two stores in one database are kept apart by giving each its own namespace.
    public var namespace: String
    /// The model types the store holds; `nil` for every type of the container.
    public var schema: Schema?
    /// `false` makes the store read-only: saves, `erase` and `deleteHistory` throw `.readOnly`.
    public var allowsSave: Bool
    /// How long history is kept.
    public var historyRetention: HistoryRetention
    /// How long to wait for the server to accept a connection before the open (or the operation
    /// that reconnects) fails: more than zero and at most ``longestConnectTimeout``, or the
    /// open throws `.invalidConfiguration`.
    public var connectTimeout: Duration

    /// The longest ``connectTimeout``: a day.
    public static let longestConnectTimeout: Duration = .seconds(86_400)

    /// For tests only (the negative control of the many-writers history test): number history
    /// transactions from a sequence without the commit-order lock, which lets a reader following
    /// tokens miss a transaction. Never set it in an app. (SPI, not `package`: the tests are in a
    /// package of their own, Backends/PostgresStore.)
    @_spi(Testing) public var unorderedHistoryNumbersForTesting = false

    /// A configuration for the database `database` on `host:port`.
    public init(
        name: String? = nil, host: String = "127.0.0.1", port: Int = 5432, user: String, password: String? = nil,
        database: String, namespace: String = "public", schema: Schema? = nil, allowsSave: Bool = true,
        historyRetention: HistoryRetention = .unlimited, connectTimeout: Duration = .seconds(10)
    ) {
        self.name = name ?? "\(database)@\(host):\(port)/\(namespace)"
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.namespace = namespace
        self.schema = schema
        self.allowsSave = allowsSave
        self.historyRetention = historyRetention
        self.connectTimeout = connectTimeout
    }

    /// The configuration without its password: user, server, database, namespace, options.
    public var description: String {
        "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?schema=\(namespace)"
            + (allowsSave ? "" : "&read-only=true")
    }

    public var debugDescription: String { "PostgresStoreConfiguration(\(description), name: \(name))" }

    /// What `dump` and the debugger show: every field, the password as `***`.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "name": name, "host": host, "port": port, "user": user, "password": password.map { _ in "***" } as Any,
            "database": database, "namespace": namespace, "schema": schema as Any, "allowsSave": allowsSave,
            "historyRetention": historyRetention, "connectTimeout": connectTimeout,
        ])
    }

    /// Throws unless ``connectTimeout`` is more than zero and at most ``longestConnectTimeout``
    /// (a longer wait overflows the driver's nanoseconds, and no one waits that long).
    func checkConnectTimeout() throws {
        guard connectTimeout > .zero, connectTimeout <= Self.longestConnectTimeout else {
            throw DataStoreError(.invalidConfiguration,
                "The connectTimeout \(connectTimeout) of \(name) must be more than zero and at most a day (connect-timeout in a location: "
                + "seconds, or a number with s, m, h or d, such as 5s).")
        }
    }
}

extension PostgresStoreConfiguration: LocatableStoreConfiguration {
    /// `postgres`, as in `postgres://user:password@host:port/database`.
    public static let scheme = "postgres"
    /// The form of a location and its options, for messages and help.
    public static let locationHelp =
        "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE — a PostgreSQL database (options: schema=NAMESPACE, "
        + "retention-transactions, retention-age such as 30d, read-only=true, connect-timeout such as 5s)"

    /// Reads `postgres://user:password@host:port/database?schema=…&retention-transactions=…`.
    /// `read-only` takes `true`, `yes`, `1` or `false`, `no`, `0` in any case;
    /// `connect-timeout` is more than zero and at most a day.
    /// - Throws: `DataStoreError` `.invalidConfiguration` naming what is missing or malformed,
    ///   the location shown with its password as `***`.
    public init(location: StoreLocation) throws {
        try location.allowOnly(["schema", "retention-transactions", "retention-age", "read-only", "connect-timeout"])
        let example = "write postgres://USER:PASSWORD@HOST:PORT/DATABASE, for example postgres://app:secret@127.0.0.1:5432/trips"
        guard location.path.hasPrefix("//"), let components = URLComponents(string: "postgres:" + location.path) else {
            throw DataStoreError(.invalidConfiguration, "'\(location)' is not a PostgreSQL location: \(example).")
        }
        guard let host = components.host, !host.isEmpty else {
            throw DataStoreError(.invalidConfiguration, "'\(location)' names no host: \(example).")
        }
        guard let user = components.user, !user.isEmpty else {
            throw DataStoreError(.invalidConfiguration, "'\(location)' names no user: \(example).")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw DataStoreError(.invalidConfiguration, "'\(location)' names no database (or more than one path component): \(example).")
        }
        let timeout = try location.duration("connect-timeout") ?? 10
        guard timeout > 0, timeout <= 86_400 else {
            throw DataStoreError(.invalidConfiguration,
                "The option connect-timeout=\(location.options["connect-timeout"] ?? "") in '\(location)' must be more than zero and at most a day, such as 5s.")
        }
        self.init(
            host: host, port: components.port ?? 5432, user: user, password: components.password,
            database: database, namespace: location.options["schema"] ?? "public",
            allowsSave: !(try location.boolean("read-only") ?? false),
            historyRetention: HistoryRetention(maximumTransactions: try location.integer("retention-transactions"),
                                               maximumAge: try location.duration("retention-age")),
            connectTimeout: .milliseconds(Int64((timeout * 1000).rounded())))
    }
}
#endif
