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
/// (weak, unowned, lazy, observed or wrapped properties; `@Observable` models; subclasses).
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
