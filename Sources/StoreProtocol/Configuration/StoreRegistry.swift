
/// A configuration that can be made from a ``StoreLocation`` string.
public protocol LocatableStoreConfiguration: DataStoreConfiguration {
    /// The scheme, such as `json`.
    static var scheme: String { get }
    /// One line for error messages and help: the form and its options.
    static var locationHelp: String { get }
    /// Makes the configuration a location names.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration`` saying what is wrong with it.
    init(location: StoreLocation) throws
}

/// Turns location strings (`json:/data/trips.json`) into configurations, by scheme. Register the
/// backends your program may use, then resolve strings from a configuration file or the
/// environment:
///
/// ```swift
/// let registry = StoreRegistry(JSONStoreConfiguration.self, LogStoreConfiguration.self, MemoryStoreConfiguration.self)
/// registry.register(MyStoreConfiguration.self)          // a third-party backend: one call
/// let container = try ModelContainer(for: Trip.self, location: "json:trips.json", registry: registry)
/// ```
public final class StoreRegistry: Sendable {
    private struct Entry: Sendable {
        let help: String
        let make: @Sendable (StoreLocation) throws -> any DataStoreConfiguration
    }

    private let entries = Locked<[String: Entry]>([:])

    /// Makes a registry of these configuration types, each under its
    /// ``LocatableStoreConfiguration/scheme`` (a later type replaces an earlier one of the same scheme).
    public init(_ types: any LocatableStoreConfiguration.Type...) {
        for type in types { register(type) }
    }

    /// Adds (or replaces) a scheme.
    public func register(_ type: any LocatableStoreConfiguration.Type) {
        register(scheme: type.scheme, help: type.locationHelp) { try type.init(location: $0) }
    }

    /// Adds (or replaces) a scheme with a function that makes its configurations.
    public func register(scheme: String, help: String, make: @escaping @Sendable (StoreLocation) throws -> any DataStoreConfiguration) {
        entries.withLock { $0[scheme.lowercased()] = Entry(help: help, make: make) }
    }

    /// The registered schemes, sorted.
    public var schemes: [String] { entries.withLock { $0.keys.sorted() } }

    /// The configuration a location string names.
    /// - Throws: ``DataStoreError/Code/invalidConfiguration`` for a malformed string, an unknown
    ///   scheme (listing the known ones), or what the scheme's configuration refuses.
    public func configuration(for string: String) throws -> any DataStoreConfiguration {
        let location = try StoreLocation(parsing: string)
        let (entry, known) = entries.withLock { entries in
            (entries[location.scheme], entries.sorted { $0.key < $1.key }.map { "  \($0.value.help)" })
        }
        guard let entry else {
            throw DataStoreError(.invalidConfiguration,
                "Unknown store scheme '\(location.scheme)' in '\(location)'. Known schemes:\n" + known.joined(separator: "\n"))
        }
        return try entry.make(location)
    }
}

extension ModelContainer {
    /// A container over the stores that location strings name.
    /// - Throws: what ``StoreRegistry/configuration(for:)`` and the stores throw.
    public convenience init(for types: any PersistentModel.Type..., locations: [String], registry: StoreRegistry) throws {
        try self.init(for: Schema(types), configurations: locations.map { try registry.configuration(for: $0) })
    }

    /// A container over the store a location string names.
    public convenience init(for types: any PersistentModel.Type..., location: String, registry: StoreRegistry) throws {
        try self.init(for: Schema(types), configurations: [registry.configuration(for: location)])
    }
}
