import Observation

/// The attributes of a model type: the key paths its ``SchemaMetadata/attributes`` lists, each
/// with the name the store knows it by. Built once per type and cached.
///
/// Why the model lists its key paths: without macros nothing else hands the framework a key path
/// that is `==` to the one a user writes (`\Trip.name`), and the framework needs one both ways:
/// from a user's key path to a stored name (metadata, tombstones, queries) and from a stored name
/// to a user's key path (a history update's `updatedAttributes`). The listed key paths are the
/// user's own, so writing through them (rollback, refresh, an upsert) is an ordinary key-path
/// assignment: no raw memory, no retyped key-path objects.
struct ModelAttributes<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked: key paths are immutable objects; the copy closures capture only key paths.

    /// One attribute: its stored name, its key path, and how to copy its value between instances.
    struct Attribute {
        let name: String
        let keyPath: any PartialKeyPath<Model> & Sendable
        /// `target[keyPath:] = source[keyPath:]`; `nil` for a `let` (only `id` may be one).
        let copy: ((_ target: Model, _ source: Model) -> Void)?
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
    /// What is wrong with the model's shape or metadata, one sentence each; empty when valid.
    let problems: [String]
    private let indexByName: [String: Int]
    private let indexByKeyPath: [AnyKeyPath: Int]
    private let relationshipIndexByName: [String: Int]
    private let relationshipIndexByKeyPath: [AnyKeyPath: Int]

    private static var cache: Locked<[ObjectIdentifier: any Sendable]> { modelAttributesCache }

    /// The attributes of `Model`, reflected the first time and cached.
    static func of(_ type: Model.Type) -> ModelAttributes<Model> {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) as? ModelAttributes<Model> { return cached }
        let made = ModelAttributes()
        cache.withLock { $0[key] = made }
        return made
    }

    private init() {
        let subject = "\(Model.self)"
        var problems: [String] = []
        var attributes: [Attribute] = []
        let fields = StoredProperties.of(Model.self)

        if Model.self is any Observable.Type {
            problems.append("\(subject) is @Observable, whose properties are computed over hidden storage "
                + "that synthesized Codable names `_name`; remove @Observable (the context tracks changes itself)")
        }
        if let superclass = _getSuperclass(Model.self) {
            problems.append("\(subject) inherits from \(superclass); a model is a final class with no superclass, "
                + "because synthesized Codable stores the properties of one class only")
        }
        // The key paths of such a class are computed, so the checks below would only repeat this.
        guard problems.isEmpty else {
            self.init(attributes: [], relationships: [], problems: problems)
            return
        }
        // A wrapped property `x` is stored as `_x`. (An @Observable model's storage is too; it is
        // refused above.) Lazy storage is not coded by synthesized Codable, so it is no attribute.
        if !(Model.self is any Observable.Type) {
            for field in fields where field.name.hasPrefix("_") && !fields.contains(where: { "_" + $0.name == field.name }) {
                let name = field.name.dropFirst()
                problems.append("\(subject).\(name) is behind a property wrapper, whose key path the framework "
                    + "cannot name and whose coded form is the wrapper's; make it a plain `var \(name)`")
            }
        }

        let listed = Model.schemaMetadata.attributes
        if listed.isEmpty {
            let names = fields.filter { !$0.name.hasPrefix("_") && !$0.name.hasPrefix("$") }.map { "\\.\($0.name)" }
            problems.append("\(subject)'s schemaMetadata lists no attributes; list the key path of every stored "
                + "property it stores: `SchemaMetadata<\(subject)>(attributes: [\(names.joined(separator: ", "))])`")
        }
        for keyPath in listed {
            guard let name = StoredProperties.name(of: keyPath, among: fields) else {
                let valueType = type(of: keyPath).valueType
                let candidates = Self.fields(ofType: valueType, in: fields)
                problems.append("a key path among \(subject)'s attributes, of type \(valueType), is not a plain stored property"
                    + (candidates.isEmpty ? "" : " (\(subject)'s stored properties of that type: \(candidates.joined(separator: ", ")))")
                    + "; an attribute is a stored `var` of the model itself, not nested, computed, weak, unowned, "
                    + "lazy, or with willSet/didSet observers")
                continue
            }
            if attributes.contains(where: { $0.name == name }) {
                problems.append("\(subject)'s schemaMetadata lists \\.\(name) twice")
                continue
            }
            if type(of: keyPath).valueType is any RelationshipValue.Type {
                problems.append("\(subject).\(name) holds models; list it among the relationships, not the attributes: "
                    + "`relationships: [.relationship(\\.\(name))]`")
                continue
            }
            let copy = Self.copier(for: keyPath)
            if copy == nil && name != "id" {
                problems.append("\(subject).\(name) is a `let`; make it a `var`, because rollback and refresh set "
                    + "attributes on the instance you hold (only `id` may be a `let`)")
            }
            attributes.append(Attribute(name: name, keyPath: keyPath, copy: copy))
        }
        if !listed.isEmpty && !attributes.contains(where: { $0.name == "id" }) {
            problems.append("\(subject)'s schemaMetadata does not list \\.id among its attributes")
        }

        var relationships: [Relationship] = []
        for relationship in Model.schemaMetadata.relationships {
            guard let name = StoredProperties.name(of: relationship.keyPath, among: fields) else {
                problems.append("a relationship key path of \(subject), to \(relationship.destination), is not a plain stored "
                    + "property; a relationship is a stored `var` of the model itself")
                continue
            }
            if attributes.contains(where: { $0.name == name }) || relationships.contains(where: { $0.name == name }) {
                problems.append("\(subject)'s schemaMetadata lists \\.\(name) twice")
                continue
            }
            relationships.append(Relationship(name: name, metadata: relationship))
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
    }

    /// The names of the stored properties a key path of `valueType` may have meant, for an error
    /// message: fields of that type, and lazy properties (stored as an optional of it).
    private static func fields(ofType valueType: Any.Type, in fields: [StoredProperties.Field]) -> [String] {
        func optional<Value>(_: Value.Type) -> Any.Type { Value?.self }
        let lazyStorageType = _openExistential(valueType, do: optional)
        let lazyPrefix = "$__lazy_storage_$_"
        return fields.compactMap { field in
            if field.type == valueType { return field.name }
            if field.name.hasPrefix(lazyPrefix), field.type == lazyStorageType {
                return field.name.dropFirst(lazyPrefix.count) + " (lazy)"
            }
            return nil
        }
    }

    /// How to copy the attribute at `keyPath` between instances, `nil` when the key path is not
    /// writable: the key path is cast to the writable key path of its own value type.
    private static func copier(for keyPath: PartialKeyPath<Model>) -> ((Model, Model) -> Void)? {
        func make<Value>(_: Value.Type) -> ((Model, Model) -> Void)? {
            guard let writable = keyPath as? ReferenceWritableKeyPath<Model, Value> else { return nil }
            return { target, source in target[keyPath: writable] = source[keyPath: writable] }
        }
        return _openExistential(type(of: keyPath).valueType, do: make)
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

    /// Sets every attribute of `target` to its value in `source`; `target` keeps its identity.
    func copyValues(from source: Model, to target: Model) {
        for attribute in attributes { attribute.copy?(target, source) }
    }
}

/// The cache of ``ModelAttributes`` per model type; a global because generic types have no
/// stored statics.
private let modelAttributesCache = Locked<[ObjectIdentifier: any Sendable]>([:])

/// The value types of relationship properties (an optional model, an array of models), so that
/// an attribute holding models can be recognised by its key path's value type, and decoded
/// empty (``SnapshotDecoder``): a snapshot holds keys, which only a context resolves.
protocol RelationshipValue {
    /// The value before the context sets it: `nil`, or `[]`.
    static var detached: Self { get }
}
extension Optional: RelationshipValue where Wrapped: PersistentModel {
    static var detached: Self { nil }
}
extension Array: RelationshipValue where Element: PersistentModel {
    static var detached: Self { [] }
}
