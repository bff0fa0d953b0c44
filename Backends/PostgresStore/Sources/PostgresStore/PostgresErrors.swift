#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import PostgresNIO
import StoreProtocol

/// Turns postgres-nio's errors into `DataStoreError`s with messages a person can act on.
///
/// Every error keeps the driver's as its `underlyingError`. A message never holds the rows'
/// values, which apps log: the server's `DETAIL` (`Key (_u0)=(…) already exists`) and the text
/// of data errors (class 22, which quotes the value) go to the error's `debugDetails`, shown only
/// by `debugDescription`, as postgres-nio's own `PSQLError` and GRDB's errors do.
enum PostgresErrors {
    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(_ error: any Error) -> String? {
        serverFields(error)?.state
    }

    /// A server error's SQLSTATE, message and detail: from postgres-nio's `PSQLError`, or from
    /// the `PostgresError.server` its prepared statements (``PreparedStatements``) fail with.
    static func serverFields(_ error: any Error) -> (state: String?, message: String?, detail: String?)? {
        if let psql = error as? PSQLError, let info = psql.serverInfo {
            return (info[.sqlState], info[.message], info[.detail])
        }
        if case .server(let info)? = error as? PostgresError {
            return (info.fields[.sqlState], info.fields[.message], info.fields[.detail])
        }
        return nil
    }

    /// A `DataStoreError` for a driver or server error met while `doing` something.
    static func map(_ error: any Error, server: String, doing: String) -> DataStoreError {
        if let error = error as? DataStoreError { return error }
        func mapped(_ code: DataStoreError.Code, _ message: String, details: String? = nil) -> DataStoreError {
            DataStoreError(code, message, debugDetails: details, underlyingError: error)
        }
        if let info = serverFields(error) {
            let state = info.state ?? "?"
            let message = info.message ?? "\(error)"
            // The server's detail names the rows' values; so does the message of a data error.
            let details = ([state.hasPrefix("22") ? message : nil, info.detail].compactMap { $0 }).joined(separator: " ")
            let safeMessage = state.hasPrefix("22") ? "a value was refused (SQLSTATE \(state))" : message
            switch state {
            case "28P01", "28000":
                return mapped(.invalidConfiguration,
                    "\(server) refused the login: \(message). Check the user and password of the configuration.")
            case "3D000":
                return mapped(.invalidConfiguration,
                    "\(server): \(message). Create the database (createdb) or fix the database name of the configuration.")
            case "23505", "23P01":
                return mapped(.constraintViolation,
                    "The save would give two models the same values of a unique constraint (\(message)). Nothing was saved.",
                    details: details.isEmpty ? nil : details)
            case "42703", "42P01":
                // A column or table of this store's layout is gone: another process migrated the
                // store (the caller checks the generation and says so), or something else changed it.
                return mapped(.incompatibleSchema,
                    "\(server) failed to \(doing): \(message). The store's tables are not those of this schema: another process "
                    + "migrated the store (open it again with the newer models), or something else changed its tables.")
            case "42501":
                return mapped(.invalidConfiguration,
                    "\(server) denied the permission to \(doing): \(message). Grant the user the rights to create and change tables in this "
                    + "database, or open the store read-only (allowsSave: false, read-only=true) to only read it.")
            case "54000":
                // program_limit_exceeded: a value larger than an index entry holds (in a store made
                // before long values were kept out of indexes), or another of PostgreSQL's limits.
                return mapped(.unsupportedValue,
                    "\(server) cannot hold a value of this save: \(message). Retrying cannot help: shorten the value, or migrate the "
                    + "store so that its tables are made again (long strings of indexed attributes are then kept outside the index). Nothing was saved.",
                    details: details.isEmpty ? nil : details)
            case let state where state.hasPrefix("08") || state.hasPrefix("57"):
                return mapped(.ioFailure,
                    "\(server) ended the connection while trying to \(doing): \(message). Nothing was acknowledged; retry when the server is back.")
            default:
                return mapped(.ioFailure, "\(server) failed to \(doing): \(safeMessage) [SQLSTATE \(state)].",
                              details: details.isEmpty ? nil : details)
            }
        }
        guard let psql = error as? PSQLError else {
            if case .connectionClosed? = error as? PostgresError {
                return mapped(.ioFailure,
                    "The connection to \(server) closed while trying to \(doing). Nothing was acknowledged; the store connects again on the next call.")
            }
            return mapped(.ioFailure, "Could not \(doing) on \(server): \(error). Check that the server runs and is reachable.")
        }
        switch psql.code {
        case .connectionError:
            return mapped(.ioFailure,
                "Could not connect to \(server): \(psql.underlying.map { "\($0)" } ?? "no answer"). "
                + "Check the host and port of the configuration and that the server is running.")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            return mapped(.ioFailure,
                "The connection to \(server) closed while trying to \(doing). Nothing was acknowledged; the store connects again on the next call.")
        case .authMechanismRequiresPassword:
            return mapped(.invalidConfiguration, "\(server) asks for a password and the configuration has none: add one.")
        default:
            return mapped(.ioFailure, "Could not \(doing) on \(server): \(psql.code)\(psql.underlying.map { " (\($0))" } ?? "").")
        }
    }
}
#endif
