import Foundation
import StoreProtocol

// The spellings of WWDC23's "Dive deeper into SwiftData" samples, which the shipped SwiftData
// later renamed: kept so that the talk's container and configuration code compiles as shown.
// Each is the shipped spelling's equivalent; prefer that one in new code.

extension ModelContainer {
    /// A container of `types` (and the types they relate to) over the default store: the talk's
    /// `ModelContainer(for: [Trip.self, BucketListItem.self])`, the same as
    /// `ModelContainer(for: Trip.self, BucketListItem.self)`.
    /// - Throws: as `ModelContainer(for: Trip.self)` does.
    public convenience init(for types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        try self.init(for: Schema(types), migrationPlan: migrationPlan, configurations: [ModelConfiguration()])
    }

    /// A container of `schema` over the stores of the configurations given without a label: the
    /// talk's `ModelContainer(for: fullSchema, trips, people)`, the same as
    /// `ModelContainer(for: fullSchema, configurations: trips, people)`.
    /// - Throws: what `init(for:migrationPlan:configurations:)` throws.
    public convenience init(for schema: Schema, _ configuration: any DataStoreConfiguration,
                            _ more: any DataStoreConfiguration...) throws {
        try self.init(for: schema, configurations: [configuration] + more)
    }
}

extension ModelConfiguration {
    /// A store at `url` with the talk's `cloudKitContainerIdentifier:`, which the shipped
    /// SwiftData spells `cloudKitDatabase: .private(identifier)`. No effect on Linux, as
    /// ``cloudKitDatabase`` has none.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
                cloudKitContainerIdentifier: String) {
        self.init(name, schema: schema, url: url, allowsSave: allowsSave, cloudKitDatabase: .private(cloudKitContainerIdentifier))
    }
}
