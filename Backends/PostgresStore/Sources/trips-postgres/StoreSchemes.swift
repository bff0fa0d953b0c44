import Foundation
import JSONStore
import LogStore
import MemoryStore
import PostgresStore
import StoreProtocol

/// `trips` with PostgreSQL: the main package's `trips` (its files are symbolic links to
/// Sources/trips) with this file in place of its StoreSchemes.swift, adding the `postgres` scheme.
/// The main package cannot register it itself: its products depend on nothing but the toolchain.
enum StoreSchemes {
    /// The registry of the schemes: json, log, memory and postgres.
    static func registry() -> StoreRegistry {
        StoreRegistry(JSONStoreConfiguration.self, LogStoreConfiguration.self, MemoryStoreConfiguration.self,
                      PostgresStoreConfiguration.self)
    }

    /// The path prefix of the app's files for a store location; `nil` for memory stores. For a
    /// PostgreSQL store, files in the current directory named by server, database and namespace
    /// (the app's token is the app's, not the database's: each app keeps its own).
    static func sidecar(for location: StoreLocation) -> String? {
        switch location.scheme {
        case "json": return location.path
        case "log": return location.path + "/trips"
        case "postgres":
            let components = URLComponents(string: "postgres:" + location.path)
            let name = [components?.host ?? "host", String(components?.port ?? 5432),
                        String(components?.path.dropFirst() ?? "db"), location.options["schema"] ?? "public"]
            return ".trips-postgres-" + name.joined(separator: "-").map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.map(String.init).joined()
        default: return nil
        }
    }

    /// The LOCATION line of the usage text.
    static let locationsHelp = "json:PATH (default \(TripsApp.defaultLocation)), log:DIRECTORY, memory:NAME, postgres://USER:PASSWORD@HOST:PORT/DATABASE[?schema=NAME]"
}
