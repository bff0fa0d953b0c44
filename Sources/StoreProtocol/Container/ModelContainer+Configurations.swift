extension ModelContainer {
    /// Opens a store for each configuration, as the initializer that takes them as an array
    /// does: SwiftData's variadic spelling, `ModelContainer(for: schema, configurations: trips, log)`.
    ///
    /// With `import DataStores` and no `configurations` argument at all, the container opens
    /// the default store (`ModelConfiguration()`).
    /// - Throws: what the array form throws; ``DataStoreError/Code/invalidSchema`` when no
    ///   configuration is given.
    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: any DataStoreConfiguration...) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }
}
