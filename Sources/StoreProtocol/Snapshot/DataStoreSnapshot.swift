/// What a store keeps of one model: its identifier and its attribute values.
///
/// A store may use ``DefaultSnapshot`` or its own type; the framework only needs to build one
/// from values and read the values back.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// The model the snapshot is of: its entity and primary key.
    var persistentIdentifier: PersistentIdentifier { get }
    /// Attribute name -> value. A `nil` optional is absent or ``SnapshotValue/null``. A
    /// relationship is held under its name as the destination's primary keys (one key, or an
    /// array of keys for a to-many); ``Schema/Relationship`` names the destination.
    var values: [String: SnapshotValue] { get }
    /// Makes a snapshot of the model `persistentIdentifier` names, holding `values` as given.
    init(persistentIdentifier: PersistentIdentifier, values: [String: SnapshotValue])
}

/// The snapshot type the framework's backends use.
public struct DefaultSnapshot: DataStoreSnapshot, Hashable {
    public var persistentIdentifier: PersistentIdentifier
    public var values: [String: SnapshotValue]

    public init(persistentIdentifier: PersistentIdentifier, values: [String: SnapshotValue]) {
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }
}

extension DataStoreSnapshot {
    /// The value of one attribute, ``SnapshotValue/null`` when absent.
    public subscript(attribute name: String) -> SnapshotValue { values[name] ?? .null }

    /// The names of the attributes whose values differ from `other`'s, in sorted order: those
    /// not bit for bit the same (``SnapshotValue/isIdentical(to:)``, so -0 differs from 0 and one
    /// spelling of a string from a canonically equivalent other). Absent and ``SnapshotValue/null``
    /// are the same value.
    /// - Complexity: O(*n*) in the number of attributes.
    public func changedAttributes(from other: [String: SnapshotValue]) -> [String] {
        var changed: [String] = []
        for (name, value) in values where !(other[name] ?? .null).isIdentical(to: value) { changed.append(name) }
        for (name, value) in other where values[name] == nil && value != .null { changed.append(name) }
        return changed.sorted()
    }
}
