/// A model's persisted properties, unique constraints and indices, said once per model by key
/// path: what the `@Model` macro generates from the declaration and its `@Attribute`,
/// `@Relationship`, `#Unique` and `#Index`.
///
/// ```swift
/// public static let schemaMetadata = SchemaMetadata<Trip>(
///     properties: [
///         .attribute("id", \Trip.id),
///         .attribute("name", \Trip.name, options: [.preserveValueOnDeletion]),
///         .relationship("items", \Trip.items, deleteRule: .cascade, inverse: \Item.trip),
///     ],
///     unique: [[\Trip.name]])
/// ```
///
/// Public for the expansion and for code generators, which write it as the macro does (see
/// ``PersistentModel``). ``ModelContainer`` checks it when it is created and throws
/// ``DataStoreError/Code/invalidSchema`` naming each property that does not qualify and why.
///
/// Why key paths: a key path written by the model is the only way for the framework to hold one
/// that is `==` to the user's `\Trip.name` (for a history update's `updatedAttributes`, queries,
/// tombstones).
public struct SchemaMetadata<Model: PersistentModel>: Sendable {
    /// Every stored attribute, `\.id` included, in the order the store lists them.
    public let attributes: [any PartialKeyPath<Model> & Sendable]
    /// Each inner array is one constraint: no two models may share all of its values. Inserting a
    /// model that collides with a stored one updates the stored one instead.
    public let unique: [[any PartialKeyPath<Model> & Sendable]]
    /// Attribute groups a store may index.
    public let indexed: [[any PartialKeyPath<Model> & Sendable]]
    /// Attributes whose last values a deletion keeps in its history tombstone.
    public let preservedOnDeletion: [any PartialKeyPath<Model> & Sendable]
    /// The entity name the model's data was stored under before: a lightweight migration renames
    /// the entity, keeping its rows and history.
    public let originalEntityName: String?
    /// The relationships: properties whose values are other models.
    let relationships: [RelationshipMetadata<Model>]
    /// The persisted properties in index order, each with its stored name.
    let properties: [SchemaProperty<Model>]

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
        var attributes: [any PartialKeyPath<Model> & Sendable] = []
        var relationships: [RelationshipMetadata<Model>] = []
        var unique = unique
        var preserved: [any PartialKeyPath<Model> & Sendable] = []
        for property in properties {
            switch property.kind {
            case .relationship(let relationship):
                relationships.append(relationship)
                if property.preservesValueOnDeletion { preserved.append(property.keyPath) }
            case .attribute(let attribute):
                let kinds = Set(attribute.options.map(\.kind))
                // Observed, never stored: listed, it is skipped.
                if kinds.contains(.ephemeral) { continue }
                attributes.append(attribute.keyPath)
                if kinds.contains(.unique) { unique.append([attribute.keyPath]) }
                if kinds.contains(.preserveValueOnDeletion) { preserved.append(attribute.keyPath) }
            }
        }
        self.attributes = attributes
        self.relationships = relationships
        self.unique = unique
        self.indexed = indexed
        self.preservedOnDeletion = preserved
        self.originalEntityName = originalEntityName
        self.properties = properties
    }
}
