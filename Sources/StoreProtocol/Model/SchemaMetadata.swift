/// What SwiftData says with `#Unique`, `#Index` and `@Attribute(.preserveValueOnDeletion)`,
/// said once per model by key path.
///
/// ```swift
/// static let schemaMetadata = SchemaMetadata<Trip>(
///     unique: [[\.name, \.startDate, \.endDate]],
///     indexed: [[\.name], [\.startDate]],
///     preservedOnDeletion: [\.name, \.startDate, \.endDate])
/// ```
///
/// Each key path must name a stored property of the model; ``ModelContainer`` checks this when
/// it opens and throws ``DataStoreError/Code/invalidSchema`` otherwise.
public struct SchemaMetadata<Model: PersistentModel>: Sendable {
    /// Each inner array is one constraint: no two models may share all of its values. Inserting a
    /// model that collides with a stored one updates the stored one instead.
    public var unique: [[any PartialKeyPath<Model> & Sendable]]
    /// Attribute groups a store may index.
    public var indexed: [[any PartialKeyPath<Model> & Sendable]]
    /// Attributes whose last values a deletion keeps in its history tombstone.
    public var preservedOnDeletion: [any PartialKeyPath<Model> & Sendable]

    public init(
        unique: [[any PartialKeyPath<Model> & Sendable]] = [],
        indexed: [[any PartialKeyPath<Model> & Sendable]] = [],
        preservedOnDeletion: [any PartialKeyPath<Model> & Sendable] = []
    ) {
        self.unique = unique
        self.indexed = indexed
        self.preservedOnDeletion = preservedOnDeletion
    }
}
