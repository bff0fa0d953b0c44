import JSONStore
import LogStore
import MemoryStore
import StoreProtocol

/// The store schemes `trips` opens, and where it keeps its own files beside a store (the app's
/// history token and the consumers file). One file of its own so that a build of `trips` with
/// more backends (Backends/PostgresStore's `trips`) replaces only this file.
enum StoreSchemes {
    /// The registry of the schemes: json, log, memory.
    static func registry() -> StoreRegistry {
        StoreRegistry(JSONStoreConfiguration.self, LogStoreConfiguration.self, MemoryStoreConfiguration.self)
    }

    /// The path prefix of the app's files for a store location; `nil` (kept in memory) for memory stores.
    static func sidecar(for location: StoreLocation) -> String? {
        switch location.scheme {
        case "json": return location.path
        case "log": return location.path + "/trips"
        default: return nil
        }
    }

    /// The LOCATION line of the usage text.
    static let locationsHelp = "json:PATH (default \(TripsApp.defaultLocation)), log:DIRECTORY, memory:NAME"
}
