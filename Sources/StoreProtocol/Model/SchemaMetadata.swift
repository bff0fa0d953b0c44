/// What SwiftData's `@Model` macro generates and what it says with `#Unique`, `#Index` and
/// `@Attribute(.preserveValueOnDeletion)`, said once per model by key path.
///
/// ```swift
/// static let schemaMetadata = SchemaMetadata<Trip>(
///     attributes: [\.id, \.name, \.destination, \.startDate, \.endDate],
///     relationships: [.relationship(\.bucketList, deleteRule: .cascade, inverse: \BucketListItem.trip)],
///     unique: [[\.name, \.startDate, \.endDate]],
///     indexed: [[\.name], [\.startDate]],
///     preservedOnDeletion: [\.name, \.startDate, \.endDate])
/// ```
///
/// `attributes` lists every property the model stores, `id` included, except relationships
/// (properties whose values are models, listed under `relationships`: ``RelationshipMetadata``):
/// each a plain stored `var` of the model (`id` may be a `let`), named in the store by its
/// coding key, which synthesized Codable makes the property's name. A stored property left out
/// of the lists must be left out of the model's `CodingKeys` too (SwiftData's `@Transient`). The other lists name attributes by the
/// same key paths. ``ModelContainer`` checks all of this when it is created and throws
/// ``DataStoreError/Code/invalidSchema`` naming each property that does not qualify and why
/// (weak, unowned, lazy, observed or wrapped properties; subclasses).
///
/// An `@Observable` model names its attributes, because the macro turns each `var` into a
/// computed property over hidden storage (`_name`), whose key path does not say what it reaches.
/// Its `CodingKeys` map that storage to the names, and its metadata lists each attribute by name
/// and key path with ``SchemaMetadata/NamedAttribute/attribute(_:_:)`` (and each relationship with
/// `.relationship("items", \.items, …)`, ``RelationshipMetadata``):
///
/// ```swift
/// @Observable final class Trip: PersistentModel, Codable {
///     var id = UUID()
///     var name = ""
///     enum CodingKeys: String, CodingKey {
///         case _id = "id", _name = "name"
///     }
///     static let schemaMetadata = SchemaMetadata<Trip>(
///         attributes: [.attribute("id", \.id), .attribute("name", \.name)],
///         unique: [[\.name]])
/// }
/// ```
///
/// The other lists keep naming attributes by key path.
///
/// Why the list: SwiftData's macro writes it; without macros, a key path written by the model is
/// the only way for the framework to hold one that is `==` to the user's `\Trip.name` (for a
/// history update's `updatedAttributes`) and to set attributes on an instance (rollback, refresh)
/// without touching raw memory.
public struct SchemaMetadata<Model: PersistentModel>: Sendable {
    /// Every stored attribute, `\.id` included, in the order the store lists them.
    public var attributes: [any PartialKeyPath<Model> & Sendable]
    /// The relationships: properties whose values are other models (``RelationshipMetadata``).
    public var relationships: [RelationshipMetadata<Model>]
    /// Each inner array is one constraint: no two models may share all of its values. Inserting a
    /// model that collides with a stored one updates the stored one instead.
    public var unique: [[any PartialKeyPath<Model> & Sendable]]
    /// Attribute groups a store may index.
    public var indexed: [[any PartialKeyPath<Model> & Sendable]]
    /// Attributes whose last values a deletion keeps in its history tombstone.
    public var preservedOnDeletion: [any PartialKeyPath<Model> & Sendable]
    /// The entity name the model's data was stored under before: a lightweight migration renames
    /// the entity, keeping its rows and history.
    public var originalEntityName: String?
    /// Former names and default values of attributes, for migration (``AttributeOption``).
    public var attributeOptions: [AttributeOption<Model>]

    /// The stored name given to each attribute by ``SchemaMetadata/NamedAttribute/attribute(_:_:)``,
    /// in the order listed; empty for metadata that lists key paths only. Looked up by key path.
    var attributeNames: [NamedAttribute] = []
    /// The persisted properties as `@Model` lists them (``init(properties:unique:indexed:originalEntityName:)``),
    /// in index order; empty for hand-written metadata.
    var properties: [SchemaProperty<Model>] = []

    /// Metadata that lists attributes by key path alone: each is stored under its property's
    /// name, which the framework reads from the key path. For a model whose attributes are plain
    /// stored properties; an `@Observable` model names them: `attributes: [.attribute("id", \.id), …]`
    /// (``SchemaMetadata/NamedAttribute/attribute(_:_:)``).
    public init(
        attributes: [any PartialKeyPath<Model> & Sendable],
        relationships: [RelationshipMetadata<Model>] = [],
        unique: [[any PartialKeyPath<Model> & Sendable]] = [],
        indexed: [[any PartialKeyPath<Model> & Sendable]] = [],
        preservedOnDeletion: [any PartialKeyPath<Model> & Sendable] = [],
        originalEntityName: String? = nil,
        attributeOptions: [AttributeOption<Model>] = []
    ) {
        self.originalEntityName = originalEntityName
        self.attributeOptions = attributeOptions
        self.attributes = attributes
        self.relationships = relationships
        self.unique = unique
        self.indexed = indexed
        self.preservedOnDeletion = preservedOnDeletion
    }
}

extension SchemaMetadata {
    /// One attribute with the name the store knows it by: what an `@Observable` model lists,
    /// made by ``SchemaMetadata/NamedAttribute/attribute(_:_:)``.
    public struct NamedAttribute: Sendable {
        /// The stored name: the attribute's coding key.
        public let name: String
        /// The key path the model's users write (`\Trip.name`).
        public let keyPath: any PartialKeyPath<Model> & Sendable
    }
}

extension SchemaMetadata.NamedAttribute {
    /// The attribute at `keyPath`, stored under `name`.
    ///
    /// For an `@Observable` model, `name` is the name its `CodingKeys` give the property's hidden
    /// storage: `var name: String` is stored as `_name`, coded as `case _name = "name"`, and
    /// listed as `.attribute("name", \.name)`. ``ModelContainer`` refuses, with
    /// ``DataStoreError/Code/invalidSchema``, a name that is not a stored field `_name` of the
    /// model whose type is the key path's value type, and a name listed twice. It cannot tell two
    /// attributes of the same type apart: `.attribute("a", \.b), .attribute("b", \.a)` is
    /// accepted and reads and writes each under the other's name, so write each name beside its
    /// own key path.
    ///
    /// A plain model may name its attributes too; the name must then be the property's name.
    public static func attribute(_ name: String, _ keyPath: any PartialKeyPath<Model> & Sendable) -> Self {
        Self(name: name, keyPath: keyPath)
    }
}

extension SchemaMetadata {
    /// Metadata that names each attribute (``SchemaMetadata/NamedAttribute/attribute(_:_:)``):
    /// what an `@Observable` model writes, whose key paths do not say what they are stored as.
    /// The other lists name attributes by their key paths, as for a plain model; relationships
    /// are named by
    /// `.relationship("items", \.items, …)` (``RelationshipMetadata``).
    // Disfavoured so that `attributes: []` keeps meaning the key-path initializer.
    @_disfavoredOverload
    public init(
        attributes: [NamedAttribute],
        relationships: [RelationshipMetadata<Model>] = [],
        unique: [[any PartialKeyPath<Model> & Sendable]] = [],
        indexed: [[any PartialKeyPath<Model> & Sendable]] = [],
        preservedOnDeletion: [any PartialKeyPath<Model> & Sendable] = [],
        originalEntityName: String? = nil,
        attributeOptions: [AttributeOption<Model>] = []
    ) {
        self.init(attributes: attributes.map(\.keyPath), relationships: relationships, unique: unique, indexed: indexed,
                  preservedOnDeletion: preservedOnDeletion, originalEntityName: originalEntityName,
                  attributeOptions: attributeOptions)
        attributeNames = attributes
    }

    /// The name ``SchemaMetadata/NamedAttribute/attribute(_:_:)`` gave `keyPath`, `nil` when none
    /// did.
    func givenName(of keyPath: AnyKeyPath) -> String? {
        attributeNames.first { $0.keyPath == keyPath }?.name
    }
}

extension SchemaMetadata {
    /// The metadata the `@Model` macro generates: every persisted property, in index order, each
    /// an attribute or relationship with what its `@Attribute` / `@Relationship` says; the
    /// `#Unique` and `#Index` key paths. The other lists (attributes preserved on deletion, former
    /// names, default values, single-attribute unique constraints) come from the properties'
    /// options. Public for the expansion and for code generators.
    public init(
        properties: [SchemaProperty<Model>],
        unique: [[any PartialKeyPath<Model> & Sendable]] = [],
        indexed: [[any PartialKeyPath<Model> & Sendable]] = [],
        originalEntityName: String? = nil
    ) {
        var attributes: [NamedAttribute] = []
        var relationships: [RelationshipMetadata<Model>] = []
        var unique = unique
        var preserved: [any PartialKeyPath<Model> & Sendable] = []
        var options: [AttributeOption<Model>] = []
        for property in properties {
            if let originalName = property.originalName {
                options.append(.originalName(property.keyPath, originalName))
            }
            switch property.kind {
            case .relationship(let relationship):
                relationships.append(relationship)
                if property.preservesValueOnDeletion { preserved.append(relationship.keyPath) }
            case .attribute(let attribute):
                let kinds = Set(attribute.options.map(\.kind))
                if kinds.contains(.ephemeral) { continue }
                attributes.append(.attribute(property.name, attribute.keyPath))
                if kinds.contains(.unique) { unique.append([attribute.keyPath]) }
                if kinds.contains(.preserveValueOnDeletion) { preserved.append(attribute.keyPath) }
                if let value = attribute.defaultValue {
                    options.append(AttributeOption(keyPath: attribute.keyPath, kind: .defaultValue(value)))
                }
            }
        }
        self.init(attributes: attributes, relationships: relationships, unique: unique, indexed: indexed,
                  preservedOnDeletion: preserved, originalEntityName: originalEntityName, attributeOptions: options)
        self.properties = properties
    }
}
