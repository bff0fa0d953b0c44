/// The attributes and relationships of a model type: each key path its ``SchemaMetadata`` lists,
/// with the name the store knows it by, both ways. Built once per type and cached.
///
/// The framework needs a key path that is `==` to the one a user writes (`\Trip.name`) both ways:
/// from a user's key path to a stored name (metadata, tombstones, queries) and from a stored name
/// to a user's key path (a history update's `updatedAttributes`). `@Model` writes each name
/// beside its key path, so nothing here reflects on the type.
///
/// A class, so that reading it from the cache is one reference (a fetch reads it several times;
/// as a struct each read copied eight references).
final class ModelAttributes<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked: every property is immutable; key paths are immutable objects.

    /// One attribute: its stored name and its key path.
    struct Attribute {
        let name: String
        let keyPath: any PartialKeyPath<Model> & Sendable
    }

    /// One relationship: its stored name and what the metadata says of it.
    struct Relationship {
        let name: String
        let metadata: RelationshipMetadata<Model>
    }

    /// The attributes in the order the metadata lists them.
    let attributes: [Attribute]
    /// The relationships in the order the metadata lists them.
    let relationships: [Relationship]
    /// What is wrong with the model's metadata, one sentence each; empty when valid.
    let problems: [String]
    private let indexByName: [String: Int]
    private let indexByKeyPath: [AnyKeyPath: Int]
    private let relationshipIndexByName: [String: Int]
    private let relationshipIndexByKeyPath: [AnyKeyPath: Int]

    /// The key path of `id`, `nil` when the metadata does not list it (a problem).
    let idKeyPath: AnyKeyPath?

    private static var cache: Locked<[ObjectIdentifier: any AnyObject & Sendable]> { modelAttributesCache }

    /// The attributes of `Model`, read from its metadata the first time and cached.
    static func of(_ type: Model.Type) -> ModelAttributes<Model> {
        let key = ObjectIdentifier(type)
        // Only `of(Model.self)` stores under `Model`'s identifier, and it stores a
        // `ModelAttributes<Model>`: a reference conversion rather than a dynamic cast of a
        // generic type (a runtime call that cost a fetch about 1,000 instructions, callgrind).
        if let cached = cache.withLock({ $0[key] }) { return unsafeDowncast(cached, to: ModelAttributes<Model>.self) }
        let made = ModelAttributes()
        cache.withLock { $0[key] = made }
        return made
    }

    private convenience init() {
        let subject = "\(Model.self)"
        if let superclass = _getSuperclass(Model.self) {
            self.init(attributes: [], relationships: [], problems: [
                "\(subject) inherits from \(superclass); a model is a class with no superclass (model "
                    + "inheritance is not supported: an @Model class's generated storage and metadata cover its own "
                    + "properties only), so copy the shared properties into \(subject) or relate the two models"])
            return
        }
        // A subclass's metadata is its superclass's; it was refused above.
        let properties = Model.ownSchemaMetadata?.properties ?? []
        var problems = properties.flatMap(\.problems)
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var names = Set<String>()
        for property in properties {
            guard names.insert(property.name).inserted else {
                problems.append("\(subject)'s schemaMetadata names two properties \"\(property.name)\"")
                continue
            }
            switch property.kind {
            case .attribute(let attribute):
                if attribute.options.contains(where: { $0.kind == .ephemeral }) { continue }
                attributes.append(Attribute(name: property.name, keyPath: attribute.keyPath))
            case .relationship(let metadata):
                relationships.append(Relationship(name: property.name, metadata: metadata))
            }
        }
        if !attributes.contains(where: { $0.name == "id" }) {
            problems.append("\(subject)'s schemaMetadata does not list \\.id among its properties")
        }
        self.init(attributes: attributes, relationships: relationships, problems: problems)
    }

    private init(attributes: [Attribute], relationships: [Relationship], problems: [String]) {
        self.attributes = attributes
        self.relationships = relationships
        self.problems = problems
        relationshipIndexByName = Dictionary(relationships.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        relationshipIndexByKeyPath = Dictionary(relationships.enumerated().map { ($1.metadata.keyPath as AnyKeyPath, $0) },
                                                uniquingKeysWith: { first, _ in first })
        indexByName = Dictionary(attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        indexByKeyPath = Dictionary(attributes.enumerated().map { ($1.keyPath as AnyKeyPath, $0) }, uniquingKeysWith: { first, _ in first })
        idKeyPath = indexByName["id"].map { attributes[$0].keyPath as AnyKeyPath }
    }

    /// The stored name of the attribute or relationship a key path names, `nil` when it names
    /// neither.
    /// - Complexity: O(1).
    func name(of keyPath: AnyKeyPath) -> String? {
        indexByKeyPath[keyPath].map { attributes[$0].name } ?? relationshipName(of: keyPath)
    }

    /// The stored name of the attribute (not relationship) a key path names.
    func attributeName(of keyPath: AnyKeyPath) -> String? {
        indexByKeyPath[keyPath].map { attributes[$0].name }
    }

    /// The stored name of the relationship a key path names, `nil` when it names none.
    func relationshipName(of keyPath: AnyKeyPath) -> String? {
        relationshipIndexByKeyPath[keyPath].map { relationships[$0].name }
    }

    /// The key path of the attribute or relationship stored under `name`, `nil` when there is none.
    /// - Complexity: O(1).
    func keyPath(named name: String) -> (any PartialKeyPath<Model> & Sendable)? {
        indexByName[name].map { attributes[$0].keyPath } ?? relationshipIndexByName[name].map { relationships[$0].metadata.keyPath }
    }
}

/// The cache of ``ModelAttributes`` per model type; a global because generic types have no
/// stored statics.
private let modelAttributesCache = Locked<[ObjectIdentifier: any AnyObject & Sendable]>([:])
