import PostgresNIO
import StoreProtocol

/// Turns postgres-nio's errors into `DataStoreError`s with messages a person can act on.
enum PostgresErrors {
    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// A `DataStoreError` for a driver or server error met while `doing` something.
    static func map(_ error: any Error, server: String, doing: String) -> DataStoreError {
        if let error = error as? DataStoreError { return error }
        guard let psql = error as? PSQLError else {
            return DataStoreError(.ioFailure, "Could not \(doing) on \(server): \(error). Check that the server runs and is reachable.")
        }
        if let info = psql.serverInfo {
            let state = info[.sqlState] ?? "?"
            let message = info[.message] ?? "\(psql)"
            let detail = info[.detail].map { " (\($0))" } ?? ""
            switch state {
            case "28P01", "28000":
                return DataStoreError(.invalidConfiguration,
                    "\(server) refused the login: \(message). Check the user and password of the configuration.")
            case "3D000":
                return DataStoreError(.invalidConfiguration,
                    "\(server): \(message). Create the database (createdb) or fix the database name of the configuration.")
            case "23505", "23P01":
                return DataStoreError(.constraintViolation,
                    "The save would give two models the same values of a unique constraint: \(message)\(detail). Nothing was saved.")
            case "42703", "42P01":
                // A column or table of this store's layout is gone: another process migrated the
                // store (the caller checks the generation and says so), or something else changed it.
                return DataStoreError(.incompatibleSchema,
                    "\(server) failed to \(doing): \(message). The store's tables are not those of this schema: another process "
                    + "migrated the store (open it again with the newer models), or something else changed its tables.")
            case "42501":
                return DataStoreError(.invalidConfiguration,
                    "\(server) denied the permission to \(doing): \(message). Grant the user the rights to create and change tables in this database.")
            case let state where state.hasPrefix("08") || state.hasPrefix("57"):
                return DataStoreError(.ioFailure,
                    "\(server) ended the connection while trying to \(doing): \(message). Nothing was acknowledged; retry when the server is back.")
            default:
                return DataStoreError(.ioFailure, "\(server) failed to \(doing): \(message)\(detail) [SQLSTATE \(state)].")
            }
        }
        switch psql.code {
        case .connectionError:
            return DataStoreError(.ioFailure,
                "Could not connect to \(server): \(psql.underlying.map { "\($0)" } ?? "no answer"). "
                + "Check the host and port of the configuration and that the server is running.")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            return DataStoreError(.ioFailure,
                "The connection to \(server) closed while trying to \(doing). Nothing was acknowledged; the store connects again on the next call.")
        case .authMechanismRequiresPassword:
            return DataStoreError(.invalidConfiguration, "\(server) asks for a password and the configuration has none: add one.")
        default:
            return DataStoreError(.ioFailure, "Could not \(doing) on \(server): \(psql.code)\(psql.underlying.map { " (\($0))" } ?? "").")
        }
    }
}
