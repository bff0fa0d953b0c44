/// The model types a container or store holds, each described as an ``Entity``: its attributes,
/// unique constraints, indices and attributes preserved on deletion.
///
/// Building a schema reflects each model type once (cached per process).
public struct Schema: Sendable, CustomStringConvertible {
    public let entities: [Entity]
    private let indexByName: [String: Int]
    private let indexByType: [ObjectIdentifier: Int]

    public init(_ types: [any PersistentModel.Type]) {
        var entities: [Entity] = []
        for type in types where !entities.contains(where: { $0.modelType == type }) {
            entities.append(Entity(type))
        }
        self.entities = entities
        indexByName = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        indexByType = Dictionary(entities.enumerated().map { (ObjectIdentifier($1.modelType), $0) }, uniquingKeysWith: { a, _ in a })
    }

    public init(_ types: any PersistentModel.Type...) { self.init(types) }

    /// The entity with this name, or `nil`.
    public func entity(named name: String) -> Entity? { indexByName[name].map { entities[$0] } }

    /// The entity of a model type, or `nil` when the schema does not hold it.
    public func entity<Model: PersistentModel>(for type: Model.Type) -> Entity? {
        indexByType[ObjectIdentifier(type)].map { entities[$0] }
    }

    /// Checks that the metadata of every entity names stored properties and that entity names
    /// are unique.
    /// - Throws: ``DataStoreError/Code/invalidSchema`` listing every problem found.
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
    // @unchecked: every property is immutable; the metatype and the key paths inside `fields`
    // are immutable values that the compiler does not know to be Sendable.
    public struct Entity: @unchecked Sendable, CustomStringConvertible {
        /// The entity name (``PersistentModel/entityName``).
        public let name: String
        /// The model type, for backends that materialize models (to evaluate a `Predicate`).
        public let modelType: any PersistentModel.Type
        /// The stored properties, in declaration order.
        public let attributeNames: [String]
        /// Unique constraints, each a list of attribute names.
        public let uniqueConstraints: [[String]]
        /// Indexed attribute groups.
        public let indices: [[String]]
        /// Attributes a deletion keeps in its tombstone.
        public let preservedOnDeletion: Set<String>

        let fields: ModelFields
        let problems: [String]

        init<Model: PersistentModel>(_ type: Model.Type) {
            let fields = ModelFields.of(type)
            let metadata = Model.schemaMetadata
            var problems: [String] = []
            func names(_ keyPaths: [any PartialKeyPath<Model> & Sendable], _ role: String) -> [String] {
                keyPaths.compactMap { keyPath in
                    if let name = fields.name(of: keyPath) { return name }
                    problems.append("\(Model.self): the \(role) key path \(keyPath) is not a stored property")
                    return nil
                }
            }
            name = Model.entityName
            modelType = type
            attributeNames = fields.fields.map(\.name)
            uniqueConstraints = metadata.unique.map { names($0, "unique") }
            indices = metadata.indexed.map { names($0, "indexed") }
            preservedOnDeletion = Set(names(metadata.preservedOnDeletion, "preserved-on-deletion"))
            if fields.field(named: "id") == nil { problems.append("\(Model.self) has no stored `id`") }
            self.fields = fields
            self.problems = problems
        }

        public var description: String { name }
    }
}
