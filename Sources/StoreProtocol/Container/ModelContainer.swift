/// Owns the stores of an app's models: each model type goes to the first configuration whose
/// schema holds it. Sendable: share one container, make a ``ModelContext`` per task.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, LivingAccommodation.self,
///                                    configurations: JSONStoreConfiguration(url: storeURL))
/// ```
public final class ModelContainer: Sendable {
    /// Every model type of every store.
    public let schema: Schema
    /// The stores, in the order of their configurations.
    public let stores: [any DataStore]
    private let storeIndexByEntity: [String: Int]
    /// The same by model type: what every fetch, insert and save asks first, answered without
    /// copying the entity or hashing its name.
    private let storeIndexByType: [ObjectIdentifier: Int]
    /// The ``mainContext``, once made.
    let mainContextStorage = MainContextStorage()

    /// Opens a store for each configuration, migrating each whose recorded schema differs.
    /// - Throws: ``DataStoreError/Code/invalidSchema`` when the models' metadata does not fit them
    ///   or no configuration is given; whatever a store throws when it cannot open.
    public convenience init(for types: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: any DataStoreConfiguration...) throws {
        try self.init(for: Schema(types), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens a store for each configuration, migrating each whose recorded schema does not hold
    /// `schema` (`StoredSchema.holds(_:)`): through `migrationPlan`'s stages from the version
    /// the store holds to `schema`'s version when the plan lists both, otherwise by lightweight
    /// changes. A store written before stores recorded their schema (``StoredSchema/unrecorded``)
    /// is taken to hold the plan's first version (of the entities it holds) when there is a
    /// plan, and `schema` otherwise.
    ///
    /// Cost: a store that holds `schema` costs one comparison; a migration reads and rewrites
    /// the store (see the backend).
    /// - Throws: ``DataStoreError/Code/invalidSchema`` when the models' metadata does not fit them
    ///   or no configuration is given; ``DataStoreError/Code/incompatibleSchema`` when a store
    ///   holds a newer schema or one that needs a custom ``MigrationStage``; whatever a store or a
    ///   stage throws when it cannot open or migrate, or a ``ResolvingStoreConfiguration`` when
    ///   it cannot choose its store. A store that fails to migrate is left as it was.
    ///   ``DataStoreError/Code/invalidConfiguration`` when no configuration's schema holds one of
    ///   `schema`'s types (nothing is opened).
    public init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                configurations: [any DataStoreConfiguration]) throws {
        try schema.validate()
        guard !configurations.isEmpty else {
            throw DataStoreError(.invalidSchema,
                "A ModelContainer needs at least one store configuration, such as ModelConfiguration() (import DataStores) "
                + "or MemoryStoreConfiguration(); ModelContainer(for:) with no configurations argument opens the default store.")
        }
        // Checked before any store opens, so that nothing is created for a container that
        // could not save some of its models.
        let held = Set(configurations.flatMap { ($0.schema ?? schema).entities.map(\.name) })
        if let missing = schema.entities.first(where: { !held.contains($0.name) }) {
            throw DataStoreError(.invalidConfiguration,
                "No configuration holds '\(missing.name)': each one's schema leaves it out. Add \(missing.name).self to "
                + "one configuration's schema, or give one configuration no schema (it then holds every type of the container).")
        }
        func open<C: DataStoreConfiguration>(_ configuration: C) throws -> any DataStore {
            // A configuration that stands for another (ModelConfiguration) opens that one's store.
            if let standIn = configuration as? any ResolvingStoreConfiguration { return try open(standIn.resolvedConfiguration()) }
            var configuration = configuration
            if configuration.schema == nil { configuration.schema = schema }
            return try C.Store(configuration)
        }
        var stores: [any DataStore] = []
        var route: [String: Int] = [:]
        for configuration in configurations {
            let store = try open(configuration)
            try Self.migrateIfNeeded(store, named: configuration.name, plan: migrationPlan)
            for entity in store.schema.entities where route[entity.name] == nil { route[entity.name] = stores.count }
            stores.append(store)
        }
        let all = Schema(schema.entities.map(\.modelType) + stores.flatMap { $0.schema.entities.map(\.modelType) })
        try all.validate()
        self.schema = all
        self.stores = stores
        storeIndexByEntity = route
        var byType: [ObjectIdentifier: Int] = [:]
        for entity in all.entities {
            if let index = route[entity.name] { byType[ObjectIdentifier(entity.modelType)] = index }
        }
        storeIndexByType = byType
    }

    private static func migrateIfNeeded(_ store: any DataStore, named name: String, plan: (any SchemaMigrationPlan.Type)?) throws {
        guard var recorded = store.recordedSchema else { return }
        if recorded.isUnrecorded {
            // Only the first version's entities this store holds: a container's other stores
            // (an activity log beside the trips) hold none of them.
            guard let first = plan?.schemas.first else { return }
            let names = Set(store.schema.entities.flatMap { [$0.name] + ($0.originalName.map { [$0] } ?? []) })
            recorded = StoredSchema(Schema(versionedSchema: first))
            recorded.entities.removeAll { !names.contains($0.name) }
            guard !recorded.entities.isEmpty else { return }
        }
        guard !recorded.holds(store.schema),
              let request = try SchemaMigrator.request(store: name, recorded: recorded, schema: store.schema, plan: plan) else { return }
        try store.migrate(request)
    }

    /// The store that holds a model type.
    /// - Throws: ``DataStoreError/Code/unknownEntity`` when no store holds it.
    public func store<T: PersistentModel>(for type: T.Type) throws -> any DataStore {
        try stores[storeIndex(for: type)]
    }

    func storeIndex<T: PersistentModel>(for type: T.Type) throws -> Int {
        if let index = storeIndexByType[ObjectIdentifier(type)] { return index }
        guard let entity = schema.entity(for: type), let index = storeIndexByEntity[entity.name] else {
            if let other = schema.entity(named: T.entityName) {
                throw DataStoreError(.unknownEntity,
                    "\(String(reflecting: T.self)) is not in the schema: its entity name '\(T.entityName)' belongs to "
                    + "\(String(reflecting: other.modelType)) here (in a migration stage, fetch the models of the stage's version).")
            }
            throw DataStoreError.unknownEntity(T.entityName, in: schema)
        }
        return index
    }

    func storeIndex(forEntityNamed name: String) throws -> Int {
        guard let index = storeIndexByEntity[name] else { throw DataStoreError.unknownEntity(name, in: schema) }
        return index
    }

    /// Removes all data and history from every store.
    public func erase() throws {
        for store in stores { try store.erase() }
    }
}
