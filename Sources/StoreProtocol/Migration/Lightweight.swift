/// The lightweight changes from a recorded schema to a new one, worked out by name and by the
/// new schema's original names (``PersistentModel/originalEntityName``,
/// `@Attribute(originalName:)`), and the stored schema that results.
struct Lightweight {
    private(set) var changes: [SchemaChange] = []
    private(set) var result: StoredSchema

    /// - Parameters:
    ///   - keepingAbsentEntities: Whether recorded entities that `schema` does not hold are kept
    ///     (a container with fewer models) or removed (a plan's next version).
    ///   - codeFills: Whether a custom stage's `didMigrate` follows, which may fill what a
    ///     lightweight migration cannot: then a changed type drops the stored values and a new
    ///     attribute without a default starts empty, and the rows are checked after the stage.
    /// - Throws: ``DataStoreError/Code/incompatibleSchema`` naming the entity and attribute that
    ///   need a custom ``MigrationStage`` and what else would do.
    init(store: String, from recorded: StoredSchema, to schema: Schema, keepingAbsentEntities: Bool, codeFills: Bool = false) throws {
        result = StoredSchema(schema)
        var matched = Set<String>()
        var entityRenames: [String: String] = [:]
        var entityChanges: [SchemaChange] = []
        var sources: [(Schema.Entity, StoredSchema.Entity)] = []
        for entity in schema.entities {
            guard let source = recorded.entity(named: entity.name) ?? entity.originalName.flatMap(recorded.entity(named:)),
                  !matched.contains(source.name) else {
                entityChanges.append(.addEntity(entity.name))
                continue
            }
            matched.insert(source.name)
            sources.append((entity, source))
            if source.name != entity.name {
                entityChanges.append(.renameEntity(from: source.name, to: entity.name))
                entityRenames[source.name] = entity.name
            }
        }
        var attributeChanges: [SchemaChange] = []
        for (entity, source) in sources {
            attributeChanges += try Self.changes(store: store, of: entity, from: source, entityRenames: entityRenames, codeFills: codeFills)
        }
        for source in recorded.entities where !matched.contains(source.name) {
            if keepingAbsentEntities {
                result.entities.append(source)
            } else {
                entityChanges.insert(.removeEntity(source.name), at: 0)
            }
        }
        result.entities.sort { $0.name < $1.name }
        // Kept entities' relationships name their destination by its new name.
        for (index, entity) in result.entities.enumerated() {
            for (position, relationship) in entity.relationships.enumerated() {
                if let renamed = entityRenames[relationship.destination] { result.entities[index].relationships[position].destination = renamed }
            }
        }
        changes = entityChanges + attributeChanges
    }

    /// The changes of one entity present in both schemas (named by its new name).
    private static func changes(store: String, of entity: Schema.Entity, from source: StoredSchema.Entity,
                                entityRenames: [String: String], codeFills: Bool) throws -> [SchemaChange] {
        var removals: [SchemaChange] = []
        var renames: [SchemaChange] = []
        var additions: [SchemaChange] = []
        var used = Set<String>()
        var newName: [String: String] = [:]
        func refuse(_ attribute: String, _ why: String, _ remedy: String) -> DataStoreError {
            DataStoreError(.incompatibleSchema,
                "The store \(store) cannot be opened: \(entity.name).\(attribute) \(why), which a lightweight migration cannot do. "
                + remedy + " Nothing was changed.")
        }
        // Where didMigrate fills the value, the models must still read to be fetched.
        func fill(_ attribute: Schema.Attribute) throws -> SnapshotValue? {
            if let value = attribute.defaultValue { return value }
            guard codeFills, !attribute.isOptional else { return nil }
            guard let placeholder = attribute.placeholder else {
                throw refuse(attribute.name, "has no value didMigrate's context could read before setting it (a \(attribute.valueType) "
                    + "has no simplest value such as 0 or \"\")", "Give it a default value (an initial "
                    + "value in its declaration, `var \(attribute.name) = …`) for didMigrate to replace.")
            }
            return placeholder
        }
        let customStage = "add a custom MigrationStage to a SchemaMigrationPlan that converts the stored values"
        let claimed = Dictionary(grouping: entity.attributes.compactMap(\.originalName) + entity.relationshipOriginalNames.values, by: { $0 })
        if let twice = claimed.first(where: { $0.value.count > 1 })?.key {
            throw DataStoreError(.invalidSchema,
                "\(entity.name): two attributes name \(twice) as their original name; only one can take its values. Nothing was changed.")
        }
        for attribute in entity.attributes {
            let old = source.attribute(named: attribute.name).flatMap { used.contains($0.name) ? nil : $0 }
                ?? attribute.originalName.flatMap(source.attribute(named:))
            guard let old, !used.contains(old.name) else {
                guard attribute.isOptional || attribute.defaultValue != nil || codeFills else {
                    throw refuse(attribute.name, "is new, not optional and has no default value",
                        "Give it one (an initial value in its declaration, `var \(attribute.name) = …`), make it "
                        + "optional, name the attribute it was stored as (@Attribute(originalName:)), or \(customStage).")
                }
                additions.append(.addAttribute(entity: entity.name, name: attribute.name, defaultValue: try fill(attribute)))
                continue
            }
            if codeFills, old.valueType != attribute.valueType {
                additions.append(.addAttribute(entity: entity.name, name: attribute.name, defaultValue: try fill(attribute)))
                continue   // the old values are dropped below; didMigrate fills the new ones
            }
            used.insert(old.name)
            newName[old.name] = attribute.name
            guard old.valueType == attribute.valueType else {
                throw refuse(attribute.name, "was stored as \(old.valueType) and is now \(attribute.valueType)", "Keep the type, or \(customStage).")
            }
            guard !old.isOptional || attribute.isOptional || codeFills else {
                throw refuse(attribute.name, "was optional and is now not (stored models may have no value)",
                    "Keep it optional, or \(customStage) that fills the missing values.")
            }
            if old.name != attribute.name {
                renames.append(.renameAttribute(entity: entity.name, from: old.name, to: attribute.name))
            }
        }
        for relationship in entity.relationships {
            let old = source.relationship(named: relationship.name).flatMap { used.contains($0.name) ? nil : $0 }
                ?? entity.relationshipOriginalNames[relationship.name].flatMap(source.relationship(named:))
            let changed = old.map { (entityRenames[$0.destination] ?? $0.destination) != relationship.destination || $0.isToMany != relationship.isToMany }
            // With a didMigrate to set it, a changed relationship starts empty and its old keys are dropped.
            guard let old, !used.contains(old.name), !(codeFills && changed == true) else {
                // A new to-one relationship reads as nil; a new to-many one as empty.
                additions.append(.addAttribute(entity: entity.name, name: relationship.name,
                                               defaultValue: relationship.isToMany ? .array([]) : nil))
                continue
            }
            used.insert(old.name)
            newName[old.name] = relationship.name
            let oldDestination = entityRenames[old.destination] ?? old.destination
            guard oldDestination == relationship.destination else {
                throw refuse(relationship.name, "led to \(oldDestination) and now leads to \(relationship.destination)",
                    "Keep its destination, or \(customStage).")
            }
            guard old.isToMany == relationship.isToMany else {
                throw refuse(relationship.name, "was a to-\(old.isToMany ? "many" : "one") relationship and is now to-\(relationship.isToMany ? "many" : "one")",
                    "Keep its kind, or \(customStage).")
            }
            if old.name != relationship.name {
                renames.append(.renameAttribute(entity: entity.name, from: old.name, to: relationship.name))
            }
        }
        for name in source.attributes.map(\.name) + source.relationships.map(\.name) where !used.contains(name) {
            removals.append(.removeAttribute(entity: entity.name, name: name))
        }
        func mapped(_ lists: [[String]]) -> Set<[String]> {
            Set(lists.map { $0.map { newName[$0] ?? $0 } })
        }
        var constraints: [SchemaChange] = []
        let oldUnique = mapped(source.uniqueConstraints), newUnique = Set(entity.uniqueConstraints)
        constraints += oldUnique.subtracting(newUnique).sorted { $0.lexicographicallyPrecedes($1) }.map { .removeUniqueConstraint(entity: entity.name, attributes: $0) }
        constraints += newUnique.subtracting(oldUnique).sorted { $0.lexicographicallyPrecedes($1) }.map { .addUniqueConstraint(entity: entity.name, attributes: $0) }
        let oldIndices = mapped(source.indices), newIndices = Set(entity.indices)
        constraints += oldIndices.subtracting(newIndices).sorted { $0.lexicographicallyPrecedes($1) }.map { .removeIndex(entity: entity.name, attributes: $0) }
        constraints += newIndices.subtracting(oldIndices).sorted { $0.lexicographicallyPrecedes($1) }.map { .addIndex(entity: entity.name, attributes: $0) }
        // Removals first, so that a store applying them in order never holds two columns of one name.
        return removals + renames + additions + constraints
    }
}
