/// One persisted property of a model, as the `@Model` macro lists it in
/// `SchemaMetadata(properties:)`: an attribute, or a relationship (a property whose value is a
/// model, an optional model or an array of models). Public for the expansion and for code
/// generators.
///
/// The position of a property in the list is its index, the one the accessors pass to
/// `ModelBacking.withMutation(of:keyPath:at:_:)`.
public struct SchemaProperty<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked: key paths are immutable; the relationship metadata is Sendable by its own note.
    enum Kind {
        case attribute(Attribute)
        case relationship(RelationshipMetadata<Model>)
    }

    struct Attribute {
        let keyPath: any PartialKeyPath<Model> & Sendable
        let options: [Schema.Attribute.Option]
        let defaultValue: SnapshotValue?
        /// Why the default value cannot be stored, when it cannot.
        let defaultValueProblem: String?
    }

    /// The stored name.
    public let name: String
    let kind: Kind
    /// The name the property was stored under before.
    let originalName: String?
    /// What is wrong with the declaration, found when the metadata is made; reported by
    /// ``ModelContainer`` as ``DataStoreError/Code/invalidSchema``.
    let problems: [String]

    /// The key path of the property.
    var keyPath: any PartialKeyPath<Model> & Sendable {
        switch kind {
        case .attribute(let attribute): attribute.keyPath
        case .relationship(let relationship): relationship.keyPath
        }
    }
}

// MARK: Attributes

extension SchemaProperty {
    /// An attribute stored under `name`: what `@Attribute(options…, originalName:)` says, with
    /// the property's initial value as the value a migration gives stored models that lack it.
    ///
    /// `.ephemeral` attributes are not stored; the macro leaves them out of the list (listed,
    /// they are skipped). `hashModifier` is accepted for source compatibility and has no effect.
    public static func attribute<V>(
        _ name: String, _ keyPath: any KeyPath<Model, V> & Sendable, options: [Schema.Attribute.Option] = [],
        originalName: String? = nil, hashModifier: String? = nil, defaultValue: V? = nil
    ) -> Self {
        var problem: String?
        var stored: SnapshotValue?
        if let defaultValue {
            stored = ModelCoding.encodeDynamically(defaultValue)
            if stored == nil { problem = "\(Model.self).\(name): its default value \(defaultValue) cannot be stored" }
        }
        return Self(name: name, kind: .attribute(Attribute(keyPath: keyPath, options: options, defaultValue: stored,
                                                           defaultValueProblem: problem)),
                    originalName: originalName, problems: problem.map { [$0] } ?? [])
    }

    /// A to-one relationship not marked `@Relationship`: SwiftData's defaults (delete rule
    /// ``DeleteRule/nullify``, no inverse given).
    public static func attribute<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, D?> & Sendable, options: [Schema.Attribute.Option] = [],
        originalName: String? = nil, hashModifier: String? = nil, defaultValue: D?? = nil
    ) -> Self {
        relationship(name, keyPath, originalName: originalName)
    }

    /// A to-many relationship not marked `@Relationship`: SwiftData's defaults (delete rule
    /// ``DeleteRule/nullify``, no inverse given).
    public static func attribute<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, [D]> & Sendable, options: [Schema.Attribute.Option] = [],
        originalName: String? = nil, hashModifier: String? = nil, defaultValue: [D]? = nil
    ) -> Self {
        relationship(name, keyPath, originalName: originalName)
    }
}

// MARK: Relationships

extension SchemaProperty {
    /// A to-one relationship, with an optional to-one inverse (`inverse: \Lodging.trip`).
    ///
    /// `minimumModelCount` and `maximumModelCount` bound the number of related models;
    /// `options` (``Schema/Relationship/Option``) and `hashModifier` are accepted for source
    /// compatibility.
    public static func relationship<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, D?> & Sendable, options: [Schema.Relationship.Option] = [],
        deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil, inverse: (any KeyPath<D, Model?> & Sendable)? = nil, hashModifier: String? = nil
    ) -> Self {
        toOne(name, keyPath, deleteRule: deleteRule, counts: (minimumModelCount, maximumModelCount), originalName: originalName, inverse: inverse)
    }

    /// A to-one relationship whose inverse is to-many (`inverse: \Trip.items`).
    public static func relationship<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, D?> & Sendable, options: [Schema.Relationship.Option] = [],
        deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil, inverse: any KeyPath<D, [Model]> & Sendable, hashModifier: String? = nil
    ) -> Self {
        toOne(name, keyPath, deleteRule: deleteRule, counts: (minimumModelCount, maximumModelCount), originalName: originalName, inverse: inverse)
    }

    /// A to-many relationship, with an optional to-one inverse (`inverse: \Item.trip`).
    public static func relationship<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, [D]> & Sendable, options: [Schema.Relationship.Option] = [],
        deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil, inverse: (any KeyPath<D, Model?> & Sendable)? = nil, hashModifier: String? = nil
    ) -> Self {
        toMany(name, keyPath, deleteRule: deleteRule, counts: (minimumModelCount, maximumModelCount), originalName: originalName, inverse: inverse)
    }

    /// A to-many relationship whose inverse is to-many too (many-to-many).
    public static func relationship<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, [D]> & Sendable, options: [Schema.Relationship.Option] = [],
        deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil, inverse: any KeyPath<D, [Model]> & Sendable, hashModifier: String? = nil
    ) -> Self {
        toMany(name, keyPath, deleteRule: deleteRule, counts: (minimumModelCount, maximumModelCount), originalName: originalName, inverse: inverse)
    }

    /// `@Relationship` on a property that holds no model: a compile-time error.
    @available(*, unavailable, message: """
        @Relationship needs a property whose type is a model, an optional model (Lodging?) or an array \
        of models ([Item]); remove @Relationship from an attribute
        """)
    public static func relationship<V>(
        _ name: String, _ keyPath: any KeyPath<Model, V> & Sendable, options: [Schema.Relationship.Option] = [],
        deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
    ) -> Self {
        Self(name: name, kind: .attribute(Attribute(keyPath: keyPath, options: [], defaultValue: nil, defaultValueProblem: nil)),
             originalName: nil, problems: ["\(Model.self).\(name) is no relationship"])
    }

    /// A to-one relationship whose inverse is not a property of the destination back to this
    /// model: a compile-time error.
    @available(*, unavailable, message: """
        the inverse must be a key path of the destination model back to this model: a property of type \
        Self? (to-one) or [Self] (to-many) on the destination, as in inverse: \\Item.trip
        """)
    public static func relationship<D: PersistentModel, W>(
        _ name: String, _ keyPath: any KeyPath<Model, D?> & Sendable, options: [Schema.Relationship.Option] = [],
        deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil, inverse: (any KeyPath<D, W> & Sendable)?, hashModifier: String? = nil
    ) -> Self {
        toOne(name, keyPath, deleteRule: deleteRule, counts: (nil, nil), originalName: originalName, inverse: nil)
    }

    /// A to-many relationship whose inverse is not a property of the destination back to this
    /// model: a compile-time error.
    @available(*, unavailable, message: """
        the inverse must be a key path of the destination model back to this model: a property of type \
        Self? (to-one) or [Self] (to-many) on the destination, as in inverse: \\Item.trip
        """)
    public static func relationship<D: PersistentModel, W>(
        _ name: String, _ keyPath: any KeyPath<Model, [D]> & Sendable, options: [Schema.Relationship.Option] = [],
        deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil, inverse: (any KeyPath<D, W> & Sendable)?, hashModifier: String? = nil
    ) -> Self {
        toMany(name, keyPath, deleteRule: deleteRule, counts: (nil, nil), originalName: originalName, inverse: nil)
    }

    private static func toOne<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, D?> & Sendable, deleteRule: DeleteRule, counts: (Int?, Int?),
        originalName: String?, inverse: AnyKeyPath?
    ) -> Self {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Model, D?> else { return readOnly(name, keyPath) }
        let metadata = RelationshipMetadata(keyPath: keyPath, destination: D.self, isToMany: false, deleteRule: deleteRule,
                                            inverse: inverse, access: .toOne(writable), name: name,
                                            minimumModelCount: counts.0, maximumModelCount: counts.1)
        return Self(name: name, kind: .relationship(metadata), originalName: originalName, problems: [])
    }

    private static func toMany<D: PersistentModel>(
        _ name: String, _ keyPath: any KeyPath<Model, [D]> & Sendable, deleteRule: DeleteRule, counts: (Int?, Int?),
        originalName: String?, inverse: AnyKeyPath?
    ) -> Self {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Model, [D]> else { return readOnly(name, keyPath) }
        let metadata = RelationshipMetadata(keyPath: keyPath, destination: D.self, isToMany: true, deleteRule: deleteRule,
                                            inverse: inverse, access: .toMany(writable), name: name,
                                            minimumModelCount: counts.0, maximumModelCount: counts.1)
        return Self(name: name, kind: .relationship(metadata), originalName: originalName, problems: [])
    }

    private static func readOnly(_ name: String, _ keyPath: any PartialKeyPath<Model> & Sendable) -> Self {
        Self(name: name, kind: .attribute(Attribute(keyPath: keyPath, options: [], defaultValue: nil, defaultValueProblem: nil)),
             originalName: nil,
             problems: ["\(Model.self).\(name) is a relationship the context cannot set; make it a `var`"])
    }
}
