import Foundation
import StoreProtocol

extension ModelContainer {
    /// A container over the default store, as SwiftData makes one when no configuration is
    /// given: `ModelConfiguration()`, a JSON store at
    /// `$XDG_DATA_HOME/<executable>/default.store` (or `~/.local/share/<executable>/default.store`),
    /// folders created. Every process of the same program opens the same store.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self)
    /// ```
    /// Model types the given ones relate to are included (`Schema(_:)`).
    /// - Throws: what ``ModelConfiguration/resolvedConfiguration()`` throws (a missing or
    ///   read-only home: `DataStoreError.invalidConfiguration` naming the path, nothing
    ///   created); what the container's other initializers throw.
    public convenience init(for types: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        try self.init(for: Schema(types), migrationPlan: migrationPlan, configurations: [ModelConfiguration()])
    }

    /// A container of `schema` over the default store, as `ModelContainer(for: Trip.self)` opens it.
    /// - Throws: as the types' form does.
    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: [ModelConfiguration()])
    }
}
