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

    /// Encodes a model id; an id that cannot be encoded is described instead so that identity
    /// still holds within a process.
    static func primaryKey<ID: Encodable>(_ id: ID) -> SnapshotValue {
        switch id {
        case let v as UUID: return .uuid(v)
        case let v as String: return .string(v)
        case let v as Int: return .int(Int64(v))
        default: return (try? SnapshotEncoder().encode(id)) ?? .string(String(describing: id))
        }
    }
}
