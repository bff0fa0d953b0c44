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

    /// Returns a configuration of a fresh, empty store that keeps history as the given retention
    /// says; `nil` when the backend's configuration has no retention. Set it with
    /// ``retaining(_:)``.
    public private(set) var makeConfigurationWithRetention: (@Sendable (HistoryRetention) throws -> any DataStoreConfiguration)?

    /// Makes a target from its parts, as given.
    public init(name: String, capabilities: StoreCapabilities, makeConfiguration: @escaping @Sendable () throws -> any DataStoreConfiguration) {
        self.name = name
        self.capabilities = capabilities
        self.makeConfiguration = makeConfiguration
    }

    public var description: String { name }

    /// This target with a way to make a configuration with a `HistoryRetention`,
    /// and ``StoreCapabilities/historyRetention``: the suite then checks that the store keeps
    /// only the history the retention allows.
    ///
    /// ```swift
    /// let target = ConformanceTarget(name: "MyStore", capabilities: .all) { MyStoreConfiguration(url: freshURL()) }
    ///     .retaining { retention in MyStoreConfiguration(url: freshURL(), historyRetention: retention) }
    /// ```
    public func retaining(_ makeConfiguration: @escaping @Sendable (HistoryRetention) throws -> any DataStoreConfiguration) -> ConformanceTarget {
        var target = self
        target.makeConfigurationWithRetention = makeConfiguration
        target.capabilities.insert(.historyRetention)
        return target
    }

    /// A container over a fresh store holding the suite's models.
    func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: ConformanceModels.schema, configurations: [makeConfiguration()])
    }

    /// A container over a fresh store that keeps history as `retention` says.
    func makeContainer(retention: HistoryRetention) throws -> ModelContainer {
        guard let makeConfigurationWithRetention else {
            throw ConformanceFailure("\(name) claims historyRetention but gives no configuration with a retention: use retaining(_:)")
        }
        return try open(makeConfigurationWithRetention(retention))
    }

    /// A container over the store a configuration names (reopening it when it exists).
    func open(_ configuration: any DataStoreConfiguration) throws -> ModelContainer {
        try ModelContainer(for: ConformanceModels.schema, configurations: [configuration])
    }
}
