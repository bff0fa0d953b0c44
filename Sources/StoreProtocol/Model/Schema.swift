/// The model types a container or store holds, each described as an ``Entity``: its attributes,
/// unique constraints, indices and attributes preserved on deletion.
///
/// Building a schema reads each model type's ``SchemaMetadata`` once (cached per process).
public struct Schema: Sendable, CustomStringConvertible {
    /// One entity per model type, in the order the types were given, then the types their
    /// relationships reach.
    public let entities: [Entity]
    /// The version of the ``VersionedSchema`` this schema was made from, `nil` otherwise.
    public let version: Version?
    private let indexByName: [String: Int]
    private let indexByType: [ObjectIdentifier: Int]

    /// A schema of `types` and of every model type their relationships reach (as SwiftData
    /// includes related models).
    public init(_ types: [any PersistentModel.Type], version: Version? = nil) {
        self.version = version
        var entities: [Entity] = []
        var pending = types
        while !pending.isEmpty {
            let type = pending.removeFirst()
            guard !entities.contains(where: { $0.modelType == type }) else { continue }
            let entity = Entity(type)
            entities.append(entity)
            pending.append(contentsOf: entity.destinationTypes)
        }
        indexByName = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        indexByType = Dictionary(entities.enumerated().map { (ObjectIdentifier($1.modelType), $0) }, uniquingKeysWith: { a, _ in a })
        self.entities = Self.pairingInverses(Self.inferringInverses(entities))
    }

    /// `@Model` relationships without a declared inverse take one where there is exactly one
    /// candidate, as SwiftData infers them: `A.r` (to `B`) and `B.s` (to `A`) pair when neither
    /// names an inverse, `s` is the only such relationship of `B` back to `A` and `r` the only one
    /// of `A` to `B` (a relationship never pairs with itself). With two candidates, neither pairs:
    /// name the inverse with `@Relationship(inverse:)`.
    private static func inferringInverses(_ entities: [Entity]) -> [Entity] {
        var entities = entities
        func isOpen(_ relationship: Relationship, of entity: Entity) -> Bool {
            guard relationship.inverse == nil else { return false }
            // Nor named as an inverse by the other side.
            return !entities.contains { other in
                other.relationships.contains { $0.destination == entity.name && $0.inverse == relationship.name }
            }
        }
        for index in entities.indices {
            for position in entities[index].relationships.indices {
                let entity = entities[index]
                let relationship = entity.relationships[position]
                guard isOpen(relationship, of: entity),
                      let otherIndex = entities.firstIndex(where: { $0.name == relationship.destination }) else { continue }
                let other = entities[otherIndex]
                let forward = entity.relationships.filter { $0.destination == other.name && isOpen($0, of: entity) }
                let back = other.relationships.filter {
                    $0.destination == entity.name && isOpen($0, of: other) && !(otherIndex == index && $0.name == relationship.name)
                }
                let forwardCount = otherIndex == index ? forward.count - back.count : forward.count
                guard forwardCount == 1, back.count == 1,
                      let backPosition = other.relationships.firstIndex(where: { $0.name == back[0].name }) else { continue }
                entities[index].relationships[position].inverse = back[0].name
                entities[otherIndex].relationships[backPosition].inverse = relationship.name
            }
        }
        return entities
    }

    /// Each relationship with its inverse named on both sides, whichever side declared it; a
    /// declared inverse that does not name the other side back is a problem of its entity.
    private static func pairingInverses(_ entities: [Entity]) -> [Entity] {
        var entities = entities
        for (index, entity) in entities.enumerated() {
            for (position, relationship) in entity.relationships.enumerated() {
                guard let other = entities.first(where: { $0.name == relationship.destination }) else { continue }
                if let inverse = relationship.inverse {
                    guard let back = other.relationships.first(where: { $0.name == inverse }), back.destination == entity.name,
                          back.inverse == nil || back.inverse == relationship.name else {
                        entities[index].problems.append("\(entity.name).\(relationship.name) names \(other.name).\(inverse) as its "
                            + "inverse, which is not a relationship of \(other.name) back to \(entity.name) (or names another inverse); "
                            + "list it among \(other.name)'s relationships")
                        continue
                    }
                } else if let back = other.relationships.first(where: { $0.destination == entity.name && $0.inverse == relationship.name }) {
                    entities[index].relationships[position].inverse = back.name
                }
            }
        }
        return entities
    }

    /// A schema of `types` and of every model type their relationships reach, unversioned.
    public init(_ types: any PersistentModel.Type...) { self.init(types) }

    /// The entity with this name, or `nil`.
    public func entity(named name: String) -> Entity? { indexByName[name].map { entities[$0] } }

    /// The entity of a model type, or `nil` when the schema does not hold it.
    public func entity<Model: PersistentModel>(for type: Model.Type) -> Entity? {
        indexByType[ObjectIdentifier(type)].map { entities[$0] }
    }

    /// Checks that every model has a shape the framework stores exactly (see ``SchemaMetadata``),
    /// that its metadata names its attributes, and that entity names are unique.
    /// - Throws: ``DataStoreError/Code/invalidSchema`` listing every problem found, each naming
    ///   the property and what to do.
    public func validate() throws {
        var problems = entities.flatMap(\.problems)
        if indexByName.count != entities.count {
            problems.append("two model types share an entity name; override `entityName` on one of them")
        }
        guard problems.isEmpty else {
            throw DataStoreError(.invalidSchema, "The schema is not valid: " + problems.joined(separator: "; ") + ".")
        }
    }

    public var description: String { entities.map(\.name).joined(separator: ", ") }
}

extension Schema {
    /// One model type as a store sees it.
    ///
    /// Copied wherever an entity is looked up (a fetch looks its model's up a few times, and each
    /// registered model holds it): its immutable parts are one shared object, so a copy retains
    /// three references rather than sixteen (callgrind: copying and destroying it was about 5,000
    /// instructions of each fetch by id).
    // @unchecked: every property is immutable but for the relationships' inverses and the
    // problems, which only the schema's initializer sets; the metatype is an immutable value that
    // the compiler does not know to be Sendable.
    public struct Entity: @unchecked Sendable, CustomStringConvertible {
        /// The entity name (``PersistentModel/entityName``).
        public var name: String { fixed.name }
        /// The model type, for backends that materialize models (to evaluate a `Predicate`).
        public var modelType: any PersistentModel.Type { fixed.modelType }
        /// The attributes, in the order ``SchemaMetadata/attributes`` lists them.
        public var attributes: [Attribute] { fixed.attributes }
        /// The attribute names, in the same order.
        public var attributeNames: [String] { fixed.attributeNames }
        /// The name the entity was stored under before (``PersistentModel/originalEntityName``).
        public var originalName: String? { fixed.originalName }
        /// Unique constraints, each a list of attribute names.
        public var uniqueConstraints: [[String]] { fixed.uniqueConstraints }
        /// Indexed attribute groups.
        public var indices: [[String]] { fixed.indices }
        /// Attributes (and relationships) a deletion keeps in its tombstone.
        public var preservedOnDeletion: Set<String> { fixed.preservedOnDeletion }
        /// The relationships, in the order ``SchemaMetadata/init(properties:unique:indexed:originalEntityName:)`` lists them.
        public internal(set) var relationships: [Relationship]
        /// The attributes a ``QueryExpression`` can name (those of a type ``QueryValueType``
        /// lists, optional or not), by stored name, as a translated query names them: what a
        /// store needs to keep an index whose keys compare as the query does
        /// (``QueryAttribute/value(in:)``).
        public var queryAttributes: [String: QueryAttribute] { fixed.queryAttributes }

        /// Relationship name -> the name it was stored under before.
        var relationshipOriginalNames: [String: String] { fixed.relationshipOriginalNames }
        /// The attribute and relationship names, for checking what a model encodes.
        var attributeNameSet: Set<String> { fixed.attributeNameSet }
        var problems: [String]
        /// How the context reads and writes each relationship, by name.
        var relationshipAccess: [String: RelationshipAccess] { fixed.relationshipAccess }
        /// The model types the relationships lead to.
        var destinationTypes: [any PersistentModel.Type] { fixed.destinationTypes }
        /// The persisted properties by index (the index their accessors mark changed).
        var propertyNames: [String] { fixed.propertyNames }

        /// What never changes once the entity is made, shared by every copy.
        private let fixed: Fixed

        private final class Fixed {
            let name: String
            let modelType: any PersistentModel.Type
            let attributes: [Attribute]
            let attributeNames: [String]
            let originalName: String?
            let uniqueConstraints: [[String]]
            let indices: [[String]]
            let preservedOnDeletion: Set<String>
            let queryAttributes: [String: QueryAttribute]
            let relationshipOriginalNames: [String: String]
            let attributeNameSet: Set<String>
            let relationshipAccess: [String: RelationshipAccess]
            let destinationTypes: [any PersistentModel.Type]
            let propertyNames: [String]

            init(name: String, modelType: any PersistentModel.Type, attributes: [Attribute], attributeNames: [String],
                 originalName: String?, uniqueConstraints: [[String]], indices: [[String]], preservedOnDeletion: Set<String>,
                 queryAttributes: [String: QueryAttribute], relationshipOriginalNames: [String: String],
                 attributeNameSet: Set<String>, relationshipAccess: [String: RelationshipAccess],
                 destinationTypes: [any PersistentModel.Type], propertyNames: [String]) {
                self.name = name
                self.modelType = modelType
                self.attributes = attributes
                self.attributeNames = attributeNames
                self.originalName = originalName
                self.uniqueConstraints = uniqueConstraints
                self.indices = indices
                self.preservedOnDeletion = preservedOnDeletion
                self.queryAttributes = queryAttributes
                self.relationshipOriginalNames = relationshipOriginalNames
                self.attributeNameSet = attributeNameSet
                self.relationshipAccess = relationshipAccess
                self.destinationTypes = destinationTypes
                self.propertyNames = propertyNames
            }
        }

        init<Model: PersistentModel>(_ type: Model.Type) {
            let attributes = ModelAttributes.of(type)
            // A subclass's metadata is its superclass's; ModelAttributes reports it as a problem.
            let metadata = Model.ownSchemaMetadata
            var problems = attributes.problems
            func names(_ keyPaths: [any PartialKeyPath<Model> & Sendable], _ role: String) -> [String] {
                keyPaths.compactMap { keyPath in
                    if let name = attributes.name(of: keyPath) { return name }
                    problems.append("\(Model.self): the \(role) key path \(keyPath) is not one of the attributes "
                        + "its schemaMetadata lists (nested key paths are not attributes)")
                    return nil
                }
            }
            let properties = metadata?.properties ?? []
            let byName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let entityAttributes = attributes.attributes.map { attribute in
                let property = byName[attribute.name]
                return Attribute(name: attribute.name, keyPath: attribute.keyPath, originalName: property?.originalName,
                                 defaultValue: property?.defaultValue, problems: &problems)
            }
            let relationshipOriginalNames = Dictionary(attributes.relationships.compactMap { relationship in
                byName[relationship.name]?.originalName.map { (relationship.name, $0) }
            }, uniquingKeysWith: { first, _ in first })
            let attributeNames = attributes.attributes.map(\.name)
            relationships = attributes.relationships.map { relationship in
                let metadata = relationship.metadata
                func inverseName<Destination: PersistentModel>(_ type: Destination.Type) -> String? {
                    metadata.inverse.flatMap { ModelAttributes.of(type).relationshipName(of: $0) }
                }
                let inverse = inverseName(metadata.destination)
                if metadata.inverse != nil, inverse == nil {
                    problems.append("\(Model.self).\(relationship.name): its inverse key path is not among "
                        + "\(metadata.destination)'s relationships; list it there too")
                }
                return Relationship(name: relationship.name, destination: metadata.destination.entityName,
                                    isToMany: metadata.isToMany, deleteRule: metadata.deleteRule, inverse: inverse,
                                    minimumModelCount: metadata.minimumModelCount, maximumModelCount: metadata.maximumModelCount)
            }
            let uniqueConstraints = (metadata?.unique ?? []).map { names($0, "unique") }
            let indices = (metadata?.indexed ?? []).map { names($0, "indexed") }
            let preservedOnDeletion = Set(names(metadata?.preservedOnDeletion ?? [], "preserved-on-deletion"))
            var queryAttributes: [String: QueryAttribute] = [:]
            for attribute in attributes.attributes {
                guard let scalar = Swift.type(of: attribute.keyPath).valueType as? any QueryScalar.Type,
                      let valueType = scalar.queryValueType else { continue }
                queryAttributes[attribute.name] = QueryAttribute(name: attribute.name, type: valueType, isOptional: scalar.isQueryOptional)
            }
            fixed = Fixed(
                name: Model.entityName, modelType: type, attributes: entityAttributes, attributeNames: attributeNames,
                originalName: Model.originalEntityName ?? metadata?.originalEntityName,
                uniqueConstraints: uniqueConstraints, indices: indices, preservedOnDeletion: preservedOnDeletion,
                queryAttributes: queryAttributes, relationshipOriginalNames: relationshipOriginalNames,
                attributeNameSet: Set(attributeNames).union(attributes.relationships.map(\.name)),
                relationshipAccess: Dictionary(attributes.relationships.map { ($0.name, $0.metadata.access) }, uniquingKeysWith: { a, _ in a }),
                destinationTypes: attributes.relationships.map(\.metadata.destination),
                propertyNames: properties.map(\.name))
            self.problems = problems
        }

        public var description: String { name }
    }
}

extension Schema.Entity {
    /// The values of unique constraint `constraint` (an index into ``uniqueConstraints``) in
    /// `values`, `nil` when one is absent or null: nulls never collide. What a store indexes to
    /// find collisions, and what the context compares with the models it holds.
    /// - Complexity: O(*k*) for a constraint of *k* attributes.
    public func uniqueKey(_ constraint: Int, in values: [String: SnapshotValue]) -> [SnapshotValue]? {
        var key: [SnapshotValue] = []
        for name in uniqueConstraints[constraint] {
            guard let value = values[name], value != .null else { return nil }
            key.append(value)
        }
        return key
    }
}
