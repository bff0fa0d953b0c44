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

    /// Opens a store for each configuration.
    /// - Throws: ``DataStoreError/Code/invalidSchema`` when the models' metadata does not fit them
    ///   or no configuration is given; whatever a store throws when it cannot open.
    public convenience init(for types: any PersistentModel.Type..., configurations: any DataStoreConfiguration...) throws {
        try self.init(for: Schema(types), configurations: configurations)
    }

    /// Opens a store for each configuration.
    public init(for schema: Schema, configurations: [any DataStoreConfiguration]) throws {
        try schema.validate()
        guard !configurations.isEmpty else {
            throw DataStoreError(.invalidSchema,
                "A ModelContainer needs at least one store configuration, such as MemoryStoreConfiguration().")
        }
        func open<C: DataStoreConfiguration>(_ configuration: C) throws -> any DataStore {
            var configuration = configuration
            if configuration.schema == nil { configuration.schema = schema }
            return try C.Store(configuration)
        }
        var stores: [any DataStore] = []
        var route: [String: Int] = [:]
        for configuration in configurations {
            let store = try open(configuration)
            for entity in store.schema.entities where route[entity.name] == nil { route[entity.name] = stores.count }
            stores.append(store)
        }
        let all = Schema(schema.entities.map(\.modelType) + stores.flatMap { $0.schema.entities.map(\.modelType) })
        try all.validate()
        self.schema = all
        self.stores = stores
        storeIndexByEntity = route
    }

    /// The store that holds a model type.
    /// - Throws: ``DataStoreError/Code/unknownEntity`` when no store holds it.
    public func store<T: PersistentModel>(for type: T.Type) throws -> any DataStore {
        try stores[storeIndex(for: type)]
    }

    func storeIndex<T: PersistentModel>(for type: T.Type) throws -> Int {
        guard let entity = schema.entity(for: type), let index = storeIndexByEntity[entity.name] else {
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
