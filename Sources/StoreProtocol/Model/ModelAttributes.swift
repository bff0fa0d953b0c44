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
        let isObservable = Model.self is any Observable.Type
        let metadata = Model.schemaMetadata

        if let superclass = _getSuperclass(Model.self) {
            problems.append("\(subject) inherits from \(superclass); a model is a final class with no superclass, "
                + "because synthesized Codable stores the properties of one class only")
        }
        // The key paths of such a class are computed, so the checks below would only repeat this.
        guard problems.isEmpty else {
            self.init(attributes: [], relationships: [], problems: problems)
            return
        }
        // A wrapped property `x` is stored as `_x`. An @Observable model's properties are stored
        // so too, each named by the metadata and checked below. Lazy storage is not coded by
        // synthesized Codable, so it is no attribute.
        if !isObservable {
            for field in fields where field.name.hasPrefix("_") && !fields.contains(where: { "_" + $0.name == field.name }) {
                let name = field.name.dropFirst()
                problems.append("\(subject).\(name) is behind a property wrapper, whose key path the framework "
                    + "cannot name and whose coded form is the wrapper's; make it a plain `var \(name)`")
            }
        }
        let naming = Naming(subject: subject, fields: fields, isObservable: isObservable)

        let listed = metadata.attributes
        if listed.isEmpty {
            let list = isObservable
                ? naming.observedNames.map { ".attribute(\"\($0)\", \\.\($0))" }
                : fields.filter { !$0.name.hasPrefix("_") && !$0.name.hasPrefix("$") }.map { "\\.\($0.name)" }
            problems.append("\(subject)'s schemaMetadata lists no attributes; list "
                + (isObservable ? "the name and key path" : "the key path") + " of every stored "
                + "property it stores: `SchemaMetadata<\(subject)>(attributes: [\(list.joined(separator: ", "))])`")
        }
        var unnamed = false
        for keyPath in listed {
            let given = metadata.givenName(of: keyPath)
            guard let name = naming.name(of: keyPath, given: given, role: .attribute, problems: &problems) else {
                unnamed = true
                continue
            }
            if attributes.contains(where: { $0.name == name }) {
                problems.append(given == nil ? "\(subject)'s schemaMetadata lists \\.\(name) twice"
                    : "\(subject)'s schemaMetadata names two attributes \"\(name)\"; give each key path its own property's name")
                continue
            }
            if type(of: keyPath).valueType is any RelationshipValue.Type {
                problems.append("\(subject).\(name) holds models; list it among the relationships, not the attributes: "
                    + "`relationships: [.relationship(\(isObservable ? "\"\(name)\", " : "")\\.\(name))]`")
                continue
            }
            let copy = Self.copier(for: keyPath)
            if copy == nil && name != "id" {
                problems.append("\(subject).\(name) is a `let`; make it a `var`, because rollback and refresh set "
                    + "attributes on the instance you hold (only `id` may be a `let`)")
            }
            attributes.append(Attribute(name: name, keyPath: keyPath, copy: copy))
        }
        // A key path refused above may be `\.id`; its problem says what to do.
        if !listed.isEmpty && !unnamed && !attributes.contains(where: { $0.name == "id" }) {
            problems.append("\(subject)'s schemaMetadata does not list \\.id among its attributes")
        }

        var relationships: [Relationship] = []
        for relationship in metadata.relationships {
            guard let name = naming.name(of: relationship.keyPath, given: relationship.name,
                                         role: .relationship(destination: relationship.destination), problems: &problems) else { continue }
            if attributes.contains(where: { $0.name == name }) || relationships.contains(where: { $0.name == name }) {
                problems.append(relationship.name == nil ? "\(subject)'s schemaMetadata lists \\.\(name) twice"
                    : "\(subject)'s schemaMetadata names two attributes or relationships \"\(name)\"; give each key path "
                        + "its own property's name")
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

    /// How to copy the attribute at `keyPath` between instances, `nil` when the key path is not
    /// writable: the key path is cast to the writable key path of its own value type.
    private static func copier(for keyPath: PartialKeyPath<Model>) -> ((Model, Model) -> Void)? {
        func make<Value>(_: Value.Type) -> ((Model, Model) -> Void)? {
            guard let writable = keyPath as? ReferenceWritableKeyPath<Model, Value> else { return nil }
            return { target, source in target[keyPath: writable] = source[keyPath: writable] }
        }
        return _openExistential(type(of: keyPath).valueType, do: make)
    }

    /// The key paths of every attribute and relationship, in the order the metadata lists them:
    /// the user's own key paths, `==` to the ones a user writes (for an `@Observable` model, the
    /// observed properties).
    var keyPaths: [any PartialKeyPath<Model> & Sendable] {
        attributes.map(\.keyPath) + relationships.map(\.metadata.keyPath)
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

extension ModelAttributes {
    /// What an attribute or a relationship is called in messages, and how the metadata names one.
    enum Role {
        case attribute
        case relationship(destination: any PersistentModel.Type)

        func example(_ name: String) -> String {
            switch self {
            case .attribute: ".attribute(\"\(name)\", \\.\(name))"
            case .relationship: ".relationship(\"\(name)\", \\.\(name), …)"
            }
        }
    }

    /// Finds the stored name of each listed key path: read from the key path of a stored property,
    /// taken from the metadata for an `@Observable` model's (computed) key paths, whose storage
    /// `_name` must then be a field of the key path's value type.
    struct Naming {
        let subject: String
        let fields: [StoredProperties.Field]
        let isObservable: Bool

        /// An @Observable model's observed properties: its fields `_name`, without the registrar
        /// (`_$observationRegistrar`).
        var observedFields: [StoredProperties.Field] {
            fields.filter { $0.name.hasPrefix("_") && !$0.name.hasPrefix("_$") }
        }

        /// The names of ``observedFields``, without the underscore.
        var observedNames: [String] { observedFields.map { String($0.name.dropFirst()) } }

        /// The stored name of `keyPath`, `given` the name the metadata gave it (or none); `nil`
        /// with the reason added to `problems` when it has none.
        func name(of keyPath: PartialKeyPath<Model>, given: String?, role: Role, problems: inout [String]) -> String? {
            let valueType = type(of: keyPath).valueType
            let what: String, aWhat: String
            switch role {
            case .attribute: (what, aWhat) = ("attribute", "an attribute of \(subject)")
            case .relationship(let destination): (what, aWhat) = ("relationship", "a relationship of \(subject), to \(destination),")
            }
            if let stored = StoredProperties.name(of: keyPath, among: fields) {
                if let given, given != stored {
                    problems.append("\(subject).\(stored) is named \"\(given)\" in its schemaMetadata, but synthesized "
                        + "Codable stores a stored property under its own name; write `\(role.example(stored))`")
                    return nil
                }
                if isObservable && given == nil {
                    problems.append("\(subject) is @Observable, so its schemaMetadata names every \(what); write "
                        + "`\(role.example(stored))`")
                    return nil
                }
                return stored
            }
            guard isObservable else {
                switch role {
                case .attribute:
                    let candidates = Self.fields(ofType: valueType, in: fields)
                    problems.append("a key path among \(subject)'s attributes, of type \(valueType), is not a plain stored "
                        + "property" + (candidates.isEmpty ? ""
                            : " (\(subject)'s stored properties of that type: \(candidates.joined(separator: ", ")))")
                        + "; an attribute is a stored `var` of the model itself, not nested, computed, weak, unowned, "
                        + "lazy, or with willSet/didSet observers")
                case .relationship(let destination):
                    problems.append("a relationship key path of \(subject), to \(destination), is not a plain stored "
                        + "property; a relationship is a stored `var` of the model itself")
                }
                return nil
            }
            let candidates = observedFields.filter { $0.type == valueType }.map { String($0.name.dropFirst()) }
            let ofThatType = candidates.isEmpty ? "" : " (its properties of type \(valueType): \(candidates.joined(separator: ", ")))"
            guard let given else {
                problems.append("\(aWhat) of type \(valueType), is not named\(ofThatType); \(subject) is "
                    + "@Observable, whose key paths do not say what they are stored as, so name each \(what) as its "
                    + "CodingKeys do: `\(role.example(candidates.count == 1 ? candidates[0] : "name"))`")
                return nil
            }
            let convention = "@Observable stores `var \(given)` as `_\(given)`, which CodingKeys name "
                + "`case _\(given) = \"\(given)\"`"
            guard let field = fields.first(where: { $0.name == "_" + given }) else {
                problems.append("\(subject)'s \(what) named \"\(given)\", of type \(valueType), is not a property of it: "
                    + "\(convention), and \(subject) has no `_\(given)`\(ofThatType); name it by its property")
                return nil
            }
            guard field.type == valueType else {
                problems.append("\(subject)'s \(what) named \"\(given)\" has a key path of type \(valueType), but "
                    + "\(subject).\(given) is of type \(field.type)\(ofThatType); \(convention), so name each key path "
                    + "by its own property: `\(role.example(given))`")
                return nil
            }
            return given
        }

        /// The names of the stored properties a key path of `valueType` may have meant, for an
        /// error message: fields of that type, and lazy properties (stored as an optional of it).
        static func fields(ofType valueType: Any.Type, in fields: [StoredProperties.Field]) -> [String] {
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
