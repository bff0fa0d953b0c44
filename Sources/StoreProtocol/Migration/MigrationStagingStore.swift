/// The store a custom migration stage's context works on: the migrating rows, in memory, so that
/// what the stage saves becomes part of the one write that ends the migration (or of nothing,
/// when a later step fails). Rows of entities the stage's schema does not hold stay untouched.
///
/// It answers fetches of whole entities and leaves filtering, sorting and paging to the context
/// (``DataStoreError/Code/preferInMemoryFilter``); it keeps no history and does not check unique
/// constraints, which the backend checks when it writes the result.
final class MigrationStagingStore: DataStore {
    typealias Snapshot = DefaultSnapshot

    struct Configuration: DataStoreConfiguration {
        typealias Store = MigrationStagingStore
        var name: String
        var schema: Schema?
        var allowsSave = true
        let rows: Locked<[String: OrderedRows]>
    }

    let configuration: Configuration
    let identifier = "migration"
    let schema: Schema

    init(_ configuration: Configuration) throws {
        self.configuration = configuration
        schema = configuration.schema ?? Schema([])
    }

    /// Runs `body` on a context over `rows` as `schema`'s models see them, and returns the rows
    /// after what it saved (changes it left unsaved are dropped, as a context's are).
    static func run(_ name: String, schema: Schema, rows: [String: [[String: SnapshotValue]]],
                    _ body: (ModelContext) throws -> Void) throws -> [String: [[String: SnapshotValue]]] {
        var staged: [String: OrderedRows] = [:]
        for (entity, entityRows) in rows {
            for row in entityRows {
                guard let key = row["id"] else { continue }
                staged[entity, default: OrderedRows()].write(key, row)
            }
        }
        let storage = Locked(staged)
        let container = try ModelContainer(for: schema, configurations: [Configuration(name: name, schema: schema, rows: storage)])
        let context = ModelContext(container)
        try body(context)
        return storage.withLock { $0.mapValues(\.all) }
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let descriptor = request.descriptor
        guard descriptor.predicate == nil, descriptor.sortBy.isEmpty, !descriptor.isPaged else { throw DataStoreError.preferInMemoryFilter }
        let rows = configuration.rows.withLock { $0[T.entityName]?.all ?? [] }
        return DataStoreFetchResult(descriptor: descriptor, fetchedSnapshots: rows.compactMap { values in
            values["id"].map { DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: T.entityName, primaryKey: $0), values: values) }
        })
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        configuration.rows.withLock { rows in
            for snapshot in request.inserted + request.updated {
                let identifier = snapshot.persistentIdentifier
                rows[identifier.entityName, default: OrderedRows()].write(identifier.primaryKey, snapshot.values)
            }
            for snapshot in request.deleted {
                rows[snapshot.persistentIdentifier.entityName]?.remove(snapshot.persistentIdentifier.primaryKey)
            }
        }
        return DataStoreSaveChangesResult(for: identifier)
    }

    func erase() throws {
        configuration.rows.withLock { $0 = [:] }
    }
}
