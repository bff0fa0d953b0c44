import Foundation

/// Names one model across contexts, stores and processes: its entity and its primary key
/// (the model's `id`, as a snapshot value).
public struct PersistentIdentifier: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The entity, see ``PersistentModel/entityName``.
    public let entityName: String
    /// The model's `id`, encoded.
    public let primaryKey: SnapshotValue

    /// Makes an identifier from an entity name and an encoded `id`, as given.
    public init(entityName: String, primaryKey: SnapshotValue) {
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    public var description: String { "\(entityName)(\(primaryKey))" }

    /// Hashes the primary key alone; `==` compares the entity name too. Models of two entities
    /// rarely share a key, and the name's string hash was a third of the cost of each lookup in
    /// a context's identity map (callgrind).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
    }

    /// Encodes a model id; an id that cannot be encoded is described instead so that identity
    /// still holds within a process.
    ///
    /// The common id types are told apart by their metatype: a dynamic cast (`id as? UUID`) is
    /// a runtime call costing a few hundred instructions, on every identifier a context makes.
    static func primaryKey<ID: Encodable>(_ id: ID) -> SnapshotValue {
        if ID.self == UUID.self { return .uuid(unsafeBitCast(id, to: UUID.self)) }
        if ID.self == String.self { return .string(unsafeBitCast(id, to: String.self)) }
        if ID.self == Int.self { return .int(Int64(unsafeBitCast(id, to: Int.self))) }
        return (try? SnapshotEncoder().encode(id)) ?? .string(String(describing: id))
    }
}
