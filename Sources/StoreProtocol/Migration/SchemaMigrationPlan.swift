/// How a store moves from one ``VersionedSchema`` to the next, in SwiftData's shape: the versions
/// in order, and a stage between each version and the next. A pair of consecutive versions with
/// no stage is migrated as ``MigrationStage/lightweight(fromVersion:toVersion:)``.
///
/// Opening a store, the container refuses a plan that does not lead from the store's version to
/// its own step by step (``DataStoreError/Code/incompatibleSchema`` naming the missing step; the
/// store is unchanged): a stage that skips a version or names one ``schemas`` does not list, two
/// stages for one step, or a store or container version ``schemas`` does not list.
///
/// ```swift
/// enum TripsMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self] }
///     static var stages: [MigrationStage] { [migrateV1toV2] }
///
///     static let migrateV1toV2 = MigrationStage.custom(
///         fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self,
///         willMigrate: { context in
///             // Remove duplicates before V2's unique constraint applies.
///             …
///             try context.save()
///         },
///         didMigrate: nil)
/// }
///
/// let container = try ModelContainer(for: Schema(versionedSchema: TripsSchemaV2.self),
///                                    migrationPlan: TripsMigrationPlan.self,
///                                    configurations: [JSONStoreConfiguration(url: storeURL)])
/// ```
public protocol SchemaMigrationPlan {
    /// Every version, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between consecutive versions.
    static var stages: [MigrationStage] { get }
}

/// One step of a ``SchemaMigrationPlan``. Sendable, so that a plan can keep its stages in
/// `static let`s as SwiftData's examples do.
// @unchecked: the metatypes are immutable values the compiler does not know to be Sendable; the
// closures are @Sendable.
public enum MigrationStage: @unchecked Sendable {
    /// Changes that need no code: added, removed and renamed attributes and entities, added
    /// defaults, index and unique-constraint changes (see ``SchemaChange``).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A lightweight migration with code around it: `willMigrate` gets a context on the data as
    /// `fromVersion`'s models see it, before the lightweight changes; `didMigrate` one on the data
    /// as `toVersion`'s models see it, after them. What either context saves becomes part of the
    /// migration, which is written as a whole or not at all; what it leaves unsaved is dropped. A
    /// closure that throws abandons the migration, and the store is left as it was.
    ///
    /// Between the two, an attribute whose type changed, or a new one without a default, holds
    /// its default value (the property's initial value) or else the simplest value of its type (0, "",
    /// false, an empty array…) for `didMigrate` to set; a struct or enum without a default is
    /// refused before anything runs. Every row must read as `toVersion`'s models afterwards.
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }
}
