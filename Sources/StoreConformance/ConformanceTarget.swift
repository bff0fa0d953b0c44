import StoreProtocol

/// The backend under test: its capabilities, and a factory that returns a configuration for a
/// fresh, empty store each time it is called. Using the same configuration value twice must
/// open the same store (for a persistent backend, the same files).
public struct ConformanceTarget: Sendable, CustomStringConvertible {
    public var name: String
    public var capabilities: StoreCapabilities
    public var makeConfiguration: @Sendable () throws -> any DataStoreConfiguration

    public init(name: String, capabilities: StoreCapabilities, makeConfiguration: @escaping @Sendable () throws -> any DataStoreConfiguration) {
        self.name = name
        self.capabilities = capabilities
        self.makeConfiguration = makeConfiguration
    }

    public var description: String { name }

    /// A container over a fresh store holding the suite's models.
    func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: ConformanceModels.schema, configurations: [makeConfiguration()])
    }

    /// A container over the store a configuration names (reopening it when it exists).
    func open(_ configuration: any DataStoreConfiguration) throws -> ModelContainer {
        try ModelContainer(for: ConformanceModels.schema, configurations: [configuration])
    }
}
