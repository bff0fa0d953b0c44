import Foundation
import JSONStore
import MemoryStore
import StoreProtocol

extension ModelConfiguration {
    /// The backends a ``url`` may name by its scheme (`log:/data/readings`) or, for a file URL,
    /// its extension (`readings.log`): `json` and `memory` to begin with. Register a backend once,
    /// before opening: `ModelConfiguration.storeRegistry.register(LogStoreConfiguration.self)`.
    /// Shared by the whole process (registering is thread-safe).
    public static let storeRegistry = StoreRegistry(JSONStoreConfiguration.self, MemoryStoreConfiguration.self)

    /// The configuration of the backend this one chooses (see ``ModelConfiguration``), with
    /// this one's ``schema`` and, when it is `false`, ``allowsSave``. At the default location it
    /// creates the store's folders.
    /// - Throws: `DataStoreError.invalidConfiguration` naming the path for a missing or read-only
    ///   home, or for a URL scheme no registered backend has (listing those that are);
    ///   `SwiftDataError.configurationFileNameContainsInvalidCharacters` or
    ///   `SwiftDataError.configurationFileNameTooLong` for a ``name`` that cannot be the default
    ///   location's file name; what the registry throws for a location it refuses.
    public func resolvedConfiguration() throws -> any DataStoreConfiguration {
        if isStoredInMemoryOnly || (url.isFileURL && url.path == "/dev/null") { return MemoryStoreConfiguration(name: name, schema: schema, allowsSave: allowsSave) }
        if let defaultLocation {
            try Self.checkFileName(name)
            try defaultLocation.createDirectory()
            return JSONStoreConfiguration(name: name, url: url, schema: schema, allowsSave: allowsSave)
        }
        return passingOn(try backendForURL())
    }

    /// The registered backend the URL's scheme or extension names, or a JSON store at the file.
    private func backendForURL() throws -> any DataStoreConfiguration {
        let registry = Self.storeRegistry
        if let scheme = url.scheme?.lowercased(), scheme != "file" {
            guard registry.schemes.contains(scheme) else {
                // The location's description hides a password the URL may hold.
                let shown = (try? StoreLocation(parsing: url.absoluteString))?.description ?? scheme + ":…"
                throw DataStoreError(.invalidConfiguration,
                    "The URL \(shown) names the scheme '\(scheme)', which no registered backend has (registered: "
                    + registry.schemes.joined(separator: ", ") + "). Register its configuration type first: "
                    + "ModelConfiguration.storeRegistry.register(…).")
            }
            return try registry.configuration(for: url.absoluteString)
        }
        let fileExtension = url.pathExtension.lowercased()
        if !fileExtension.isEmpty, fileExtension != JSONStoreConfiguration.scheme, registry.schemes.contains(fileExtension) {
            return try registry.configuration(for: fileExtension + ":" + url.path)
        }
        return JSONStoreConfiguration(name: name, url: url, schema: schema, allowsSave: allowsSave)
    }

    /// `configuration` with this one's schema where it has none, and read-only when this one is.
    private func passingOn<C: DataStoreConfiguration>(_ configuration: C) -> any DataStoreConfiguration {
        var configuration = configuration
        if configuration.schema == nil { configuration.schema = schema }
        if !allowsSave { configuration.allowsSave = false }
        return configuration
    }

    /// The longest name whose store files all fit a file name (255 bytes): the JSON store keeps
    /// `<name>.store` with a `.journal`, a `.lock`, and while it replaces one of them a
    /// temporary `<file>.tmp-<process id>`; the longest is the journal's temporary file.
    static let maximumNameLength = 255 - ".store.journal.tmp-4294967295".utf8.count

    /// SwiftData's rules for a configuration name as a file name.
    private static func checkFileName(_ name: String) throws {
        if name.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\0") {
            throw SwiftDataError(.configurationFileNameContainsInvalidCharacters,
                "The configuration name '\(name)' cannot be a file name (it is empty, '.' or '..', or holds '/' or NUL): "
                + "choose another name, or give ModelConfiguration a url.")
        }
        if name.utf8.count > maximumNameLength {
            throw SwiftDataError(.configurationFileNameTooLong,
                "The configuration name '\(name.prefix(40))…' is \(name.utf8.count) bytes long; the default store's files "
                + "are named after it, and the longest of them must fit in 255 bytes, so a name may be \(maximumNameLength) "
                + "bytes at most: choose a shorter name, or give ModelConfiguration a url.")
        }
    }
}

extension ModelConfiguration {
    /// The `Store` type a `DataStoreConfiguration` must name. It has no instances: the
    /// container opens the store of ``ModelConfiguration/resolvedConfiguration()`` instead (a
    /// `JSONStore` or a `MemoryStore`), and this initializer always throws.
    public final class UnresolvedStore: DataStore {
        public typealias Snapshot = DefaultSnapshot

        /// Never set: there is no instance.
        public let configuration: ModelConfiguration
        /// Never set: there is no instance.
        public let identifier: String
        /// Never set: there is no instance.
        public let schema: Schema

        /// Refuses: open a `ModelConfiguration` through a `ModelContainer`.
        /// - Throws: `DataStoreError.invalidConfiguration`, always.
        public init(_ configuration: ModelConfiguration) throws {
            throw Self.refusal(configuration)
        }

        private static func refusal(_ configuration: ModelConfiguration) -> DataStoreError {
            DataStoreError(.invalidConfiguration,
                "ModelConfiguration '\(configuration.name)' chooses a backend: open it through a ModelContainer, "
                + "or open the store of its resolvedConfiguration().")
        }

        /// Unreachable (there is no instance); refuses as the initializer does.
        public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
            throw Self.refusal(configuration)
        }
        /// Unreachable (there is no instance); refuses as the initializer does.
        public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
            throw Self.refusal(configuration)
        }
        /// Unreachable (there is no instance); refuses as the initializer does.
        public func erase() throws { throw Self.refusal(configuration) }
    }
}
