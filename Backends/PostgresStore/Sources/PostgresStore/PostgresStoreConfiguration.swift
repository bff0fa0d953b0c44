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
public struct PostgresStoreConfiguration: DataStoreConfiguration {
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
    /// that reconnects) fails.
    public var connectTimeout: Duration

    /// For tests only (the negative control of the many-writers history test): number history
    /// transactions from a sequence without the commit-order lock, which lets a reader following
    /// tokens miss a transaction. Never set it in an app.
    package var unorderedHistoryNumbersForTesting = false

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
}

extension PostgresStoreConfiguration: LocatableStoreConfiguration {
    /// `postgres`, as in `postgres://user:password@host:port/database`.
    public static let scheme = "postgres"
    /// The form of a location and its options, for messages and help.
    public static let locationHelp =
        "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE — a PostgreSQL database (options: schema=NAMESPACE, "
        + "retention-transactions, retention-age such as 30d, read-only=true, connect-timeout such as 5s)"

    /// Reads `postgres://user:password@host:port/database?schema=…&retention-transactions=…`.
    /// - Throws: `DataStoreError` `.invalidConfiguration` naming what is missing or malformed.
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
        self.init(
            host: host, port: components.port ?? 5432, user: user, password: components.password,
            database: database, namespace: location.options["schema"] ?? "public",
            allowsSave: location.options["read-only"] != "true",
            historyRetention: HistoryRetention(maximumTransactions: try location.integer("retention-transactions"),
                                               maximumAge: try location.duration("retention-age")),
            connectTimeout: .milliseconds(Int64(timeout * 1000)))
    }
}
