import StoreProtocol

/// The backend under test: its capabilities, and a factory that returns a configuration for a
/// fresh, empty store each time it is called. Using the same configuration value twice must
/// open the same store (for a persistent backend, the same files).
public struct ConformanceTarget: Sendable, CustomStringConvertible {
    /// The backend's name: the target's `description` in test output.
    public var name: String
    /// What the backend does; the suite runs the cases that apply, and for a missing capability the
    /// cases that check its refusal.
    public var capabilities: StoreCapabilities
    /// Returns a configuration of a fresh, empty store each time it is called (a new file or name);
    /// a case that reopens a store uses the same value twice.
    public var makeConfiguration: @Sendable () throws -> any DataStoreConfiguration

    /// Makes a target from its parts, as given.
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
