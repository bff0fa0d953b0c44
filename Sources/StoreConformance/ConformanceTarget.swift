import Foundation
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

    /// The factories of a target whose stores are files (see ``init(name:capabilities:makeFileConfiguration:)``
    /// and ``retaining(fileConfiguration:)``).
    private var makeFileConfiguration: (@Sendable (URL) throws -> any DataStoreConfiguration)?
    private var makeFileConfigurationWithRetention: (@Sendable (URL, HistoryRetention) throws -> any DataStoreConfiguration)?

    /// Makes a target from its parts, as given.
    public init(name: String, capabilities: StoreCapabilities, makeConfiguration: @escaping @Sendable () throws -> any DataStoreConfiguration) {
        self.name = name
        self.capabilities = capabilities
        self.makeConfiguration = makeConfiguration
    }

    /// Makes a target whose stores are files or folders, so that a run leaves nothing behind: the
    /// factory gets a new location each time it is called (nothing exists there yet), inside a
    /// folder the suite makes in the temporary directory for each case and removes, with
    /// everything the store created in it, when the case ends.
    ///
    /// ```swift
    /// let target = ConformanceTarget(name: "MyStore", capabilities: .all) { location in
    ///     MyStoreConfiguration(url: location)
    /// }
    /// ```
    public init(name: String, capabilities: StoreCapabilities,
                makeFileConfiguration: @escaping @Sendable (_ location: URL) throws -> any DataStoreConfiguration) {
        self.init(name: name, capabilities: capabilities) {
            try makeFileConfiguration(URL.temporaryDirectory.appending(path: UUID().uuidString))
        }
        self.makeFileConfiguration = makeFileConfiguration
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

    /// ``retaining(_:)`` for a target whose stores are files: the factory gets a new location, as
    /// the one of ``init(name:capabilities:makeFileConfiguration:)`` does, removed when the case ends.
    ///
    /// ```swift
    /// let target = ConformanceTarget(name: "MyStore", capabilities: .all) { MyStoreConfiguration(url: $0) }
    ///     .retaining { location, retention in MyStoreConfiguration(url: location, historyRetention: retention) }
    /// ```
    public func retaining(
        fileConfiguration makeConfiguration: @escaping @Sendable (_ location: URL, HistoryRetention) throws -> any DataStoreConfiguration
    ) -> ConformanceTarget {
        var target = retaining { retention in try makeConfiguration(URL.temporaryDirectory.appending(path: UUID().uuidString), retention) }
        target.makeFileConfigurationWithRetention = makeConfiguration
        return target
    }

    /// Runs `body` on this target; for a target whose stores are files, with its factories
    /// giving locations in a folder of the case's own, removed afterwards whatever `body` does.
    func inCaseFolder(_ body: (ConformanceTarget) async throws -> Void) async throws {
        guard makeFileConfiguration != nil || makeFileConfigurationWithRetention != nil else { return try await body(self) }
        let folder = URL.temporaryDirectory.appending(path: "conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var target = self
        if let make = makeFileConfiguration {
            target.makeConfiguration = { try make(folder.appending(path: UUID().uuidString)) }
        }
        if let make = makeFileConfigurationWithRetention {
            target.makeConfigurationWithRetention = { try make(folder.appending(path: UUID().uuidString), $0) }
        }
        try await body(target)
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
