import Foundation

/// The schema a store's data was written with, as the store records it beside the data: every
/// entity's attributes with their value types, its relationships, unique constraints and indexes,
/// and the version. Codable and free of model types, so a store can keep it and an app that no
/// longer has the old model types can still compare it with its own.
///
/// A backend records it when it creates a store and when it migrates one
/// (``DataStore/migrate(_:)``); ``ModelContainer`` compares it with the container's schema on
/// open. Lists are kept sorted by name, so two schemas with the same content are `==` and have
/// one ``fingerprint``.
public struct StoredSchema: Codable, Sendable, Hashable {
    /// The version of the ``VersionedSchema`` that wrote the data, `nil` for a plain ``Schema``.
    public var version: Schema.Version?
    /// The entities, sorted by name.
    public var entities: [Entity]
    /// The fingerprints of the schemas the store held before, oldest first: a schema among them
    /// is older than the data and is refused (a downgrade).
    public var supersededFingerprints: [String]

    /// One entity as recorded: its name, attributes, relationships and constraints.
    public struct Entity: Codable, Sendable, Hashable {
        /// The entity name (``PersistentModel/entityName``).
        public var name: String
        /// Sorted by name.
        public var attributes: [Attribute]
        /// Sorted by name.
        public var relationships: [Relationship]
        /// Each a list of attribute names; the lists sorted.
        public var uniqueConstraints: [[String]]
        /// Each a list of attribute names; the lists sorted.
        public var indices: [[String]]

        /// An entity as a backend that builds a recorded schema by hand describes it; keep the lists
        /// sorted by name for `==` to compare content.
        public init(name: String, attributes: [Attribute], relationships: [Relationship] = [],
                    uniqueConstraints: [[String]] = [], indices: [[String]] = []) {
            self.name = name
            self.attributes = attributes
            self.relationships = relationships
            self.uniqueConstraints = uniqueConstraints
            self.indices = indices
        }

        /// The attribute with this stored name, or `nil`.
        public func attribute(named name: String) -> Attribute? { attributes.first { $0.name == name } }
        /// The relationship with this name, or `nil`.
        public func relationship(named name: String) -> Relationship? { relationships.first { $0.name == name } }
    }

    /// One attribute as recorded: what a migration compares to tell a rename, an addition or a
    /// change of type.
    public struct Attribute: Codable, Sendable, Hashable {
        /// The stored name (the property's coding key).
        public var name: String
        /// The Swift type of the value, optional unwrapped (`Int`, `Date`, `Array<String>`).
        public var valueType: String
        /// Whether stored models may have no value.
        public var isOptional: Bool

        /// An attribute as recorded.
        public init(name: String, valueType: String, isOptional: Bool) {
            self.name = name
            self.valueType = valueType
            self.isOptional = isOptional
        }
    }

    /// One relationship as recorded (``Schema/Relationship`` without the model types).
    public struct Relationship: Codable, Sendable, Hashable {
        /// The stored name (the property's coding key).
        public var name: String
        /// The destination entity's name.
        public var destination: String
        /// Whether it holds an array of destination keys (to-many) or one key (to-one).
        public var isToMany: Bool
        /// What deleting the model does to the related ones.
        public var deleteRule: DeleteRule
        /// The destination's relationship back, if any.
        public var inverse: String?

        /// A relationship as recorded.
        public init(name: String, destination: String, isToMany: Bool, deleteRule: DeleteRule, inverse: String?) {
            self.name = name
            self.destination = destination
            self.isToMany = isToMany
            self.deleteRule = deleteRule
            self.inverse = inverse
        }
    }

    /// The stored form of `schema`.
    public init(_ schema: Schema) {
        version = schema.version
        supersededFingerprints = []
        entities = schema.entities.map { entity in
            Entity(
                name: entity.name,
                attributes: entity.attributes.map { Attribute(name: $0.name, valueType: $0.valueType, isOptional: $0.isOptional) }
                    .sorted { $0.name < $1.name },
                relationships: entity.relationships.map {
                    Relationship(name: $0.name, destination: $0.destination, isToMany: $0.isToMany, deleteRule: $0.deleteRule, inverse: $0.inverse)
                }.sorted { $0.name < $1.name },
                uniqueConstraints: entity.uniqueConstraints.sorted { $0.lexicographicallyPrecedes($1) },
                indices: entity.indices.sorted { $0.lexicographicallyPrecedes($1) })
        }.sorted { $0.name < $1.name }
    }

    /// The recorded entity with this name, or `nil`.
    public func entity(named name: String) -> Entity? { entities.first { $0.name == name } }

    /// What a store written before stores recorded their schema reports as its
    /// ``DataStore/recordedSchema``: no entities, no version. ``ModelContainer`` takes such a
    /// store to hold the first version of its migration plan, or the container's schema without
    /// one (the store then records that schema the next time it rewrites itself).
    public static let unrecorded = StoredSchema(Schema([]))

    /// Whether this is ``unrecorded``.
    public var isUnrecorded: Bool { version == nil && entities.isEmpty }

    /// Identifies the content (version and entities, not ``supersededFingerprints``): 16 hex
    /// digits of a 64-bit FNV-1a hash of a canonical text of it, the same on every platform.
    /// Stores keep fingerprints (what each superseded), so this never changes.
    public var fingerprint: String {
        var text = "v=" + (version?.description ?? "-")
        for entity in entities {
            text += "\nE " + entity.name
            for attribute in entity.attributes { text += "\nA \(attribute.name):\(attribute.valueType)\(attribute.isOptional ? "?" : "")" }
            for relationship in entity.relationships {
                text += "\nR \(relationship.name)>\(relationship.destination)\(relationship.isToMany ? "*" : "1")"
                    + " \(relationship.deleteRule.rawValue) \(relationship.inverse ?? "-")"
            }
            for names in entity.uniqueConstraints { text += "\nU " + names.joined(separator: ",") }
            for names in entity.indices { text += "\nI " + names.joined(separator: ",") }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether data of this schema reads as `schema`'s without migration: for each of `schema`'s
    /// entities the same attributes, relationships and constraints, and the same version unless
    /// `schema` has none (a widget's plain `Schema` of the same models reads a versioned store).
    /// Recorded entities that `schema` does not hold do not matter (another container, a
    /// widget's, may hold fewer models).
    /// - Complexity: makes `schema`'s stored form: a store that checks often keeps that and calls
    ///   the overload that takes a `StoredSchema`.
    public func holds(_ schema: Schema) -> Bool {
        holds(StoredSchema(schema))
    }

    /// Whether data of this schema reads as `opening`'s (a schema's stored form) without migration.
    public func holds(_ opening: StoredSchema) -> Bool {
        (opening.version == nil || version == opening.version) && opening.entities.allSatisfy { entity(named: $0.name) == $0 }
    }

    /// Whether a store that recorded this schema must be migrated before its data is read or
    /// written as `opening`'s: it is recorded (not ``unrecorded``) and does not hold `opening`.
    /// Until then the store throws ``DataStoreError/Code/incompatibleSchema``.
    public func needsMigration(toHold opening: StoredSchema) -> Bool {
        !isUnrecorded && !holds(opening)
    }

    /// Whether `other` holds the same version and entities (whatever each superseded).
    public func hasSameContent(as other: StoredSchema) -> Bool {
        version == other.version && entities == other.entities
    }
}
