import Foundation
import JSONStore
import StoreProtocol

/// A flaw of migration a backend author could really write: the migration area's negative control.
enum MigrationFlaw: String, CaseIterable, Sendable {
    /// Reports no recorded schema, so it is never migrated.
    case recordsNoSchema
    /// Reports its recorded schema without the version, so a plan finds it by its models only.
    case recordsNoVersion
    /// Reports success from `migrate` and changes nothing.
    case acknowledgesWithoutMigrating
    /// Reports success when the migration fails (a custom stage throws, rows break a constraint).
    case swallowsMigrationErrors
}

struct BrokenMigratingStoreConfiguration: DataStoreConfiguration {
    typealias Store = BrokenMigratingStore
    var name = "broken migrating"
    var schema: Schema?
    var allowsSave = true
    let url: URL
    /// `nil`: the wrapped store as it is, the control's control.
    let flaw: MigrationFlaw?
}

/// A ``JSONStore`` behind one ``MigrationFlaw``.
final class BrokenMigratingStore: DataStore {
    typealias Snapshot = DefaultSnapshot

    let configuration: BrokenMigratingStoreConfiguration
    private let inner: JSONStore
    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }

    init(_ configuration: BrokenMigratingStoreConfiguration) throws {
        self.configuration = configuration
        inner = try JSONStore(JSONStoreConfiguration(url: configuration.url, schema: configuration.schema))
    }

    var recordedSchema: StoredSchema? {
        switch configuration.flaw {
        case .recordsNoSchema: return nil
        case .recordsNoVersion:
            var recorded = inner.recordedSchema
            recorded?.version = nil
            return recorded
        default: return inner.recordedSchema
        }
    }

    func migrate(_ request: DataStoreMigrationRequest) throws {
        switch configuration.flaw {
        case .acknowledgesWithoutMigrating: return
        case .swallowsMigrationErrors: try? inner.migrate(request)
        default: try inner.migrate(request)
        }
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try inner.fetch(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try inner.save(request)
    }

    func erase() throws { try inner.erase() }
}
