import Foundation
import StoreProtocol

// The models of the migration cases: one entity, "SuiteJourney", as several versions of an app
// would declare it, each a type of its own that keeps the entity name.

/// The first version: a journey with a name, a rating and a secret, and its stops.
public final class JourneyV1: PersistentModel, Codable {
    public static var entityName: String { "SuiteJourney" }
    public var id = UUID()
    /// The journey's name: later versions rename it to `title` and make it unique; preserved in
    /// tombstones.
    public var name: String
    /// An integer rating: later versions index it, and version 2 stores it as text.
    public var rating: Int
    /// An optional attribute that later versions remove.
    public var secret: String?

    /// Makes a journey with a new `id` from its values, as given.
    public init(name: String, rating: Int, secret: String? = nil) {
        self.name = name
        self.rating = rating
        self.secret = secret
    }

    public static let schemaMetadata = SchemaMetadata<JourneyV1>(
        attributes: [\.id, \.name, \.rating, \.secret], preservedOnDeletion: [\.name])
}

/// A stop: the entity the cases remove and rename.
public final class StopV1: PersistentModel, Codable {
    public static var entityName: String { "SuiteStop" }
    public var id = UUID()
    /// The stop's place, which the cases read after a rename or a removal.
    public var place: String

    /// Makes a stop with a new `id`.
    public init(place: String) { self.place = place }

    public static let schemaMetadata = SchemaMetadata<StopV1>(attributes: [\.id, \.place])
}

/// Adds an optional attribute.
final class JourneyWithNote: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
    var secret: String?
    var note: String?

    init(name: String) {
        self.name = name
        rating = 0
    }

    static let schemaMetadata = SchemaMetadata<JourneyWithNote>(attributes: [\.id, \.name, \.rating, \.secret, \.note])
}

/// Adds a non-optional attribute with a default value.
final class JourneyWithStars: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
    var secret: String?
    var stars: Int = 3

    init(name: String, stars: Int) {
        self.name = name
        rating = 0
        self.stars = stars
    }

    static let schemaMetadata = SchemaMetadata<JourneyWithStars>(
        attributes: [\.id, \.name, \.rating, \.secret, \.stars], attributeOptions: [.defaultValue(\.stars, 3)])
}

/// Adds a non-optional attribute without a default: a lightweight migration refuses it.
final class JourneyWithRequiredStars: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
    var secret: String?
    var stars: Int

    static let schemaMetadata = SchemaMetadata<JourneyWithRequiredStars>(attributes: [\.id, \.name, \.rating, \.secret, \.stars])
}

/// Removes `secret`.
final class JourneyWithoutSecret: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int

    static let schemaMetadata = SchemaMetadata<JourneyWithoutSecret>(attributes: [\.id, \.name, \.rating])
}

/// Renames `name` to `title` and indexes it.
final class JourneyRenamed: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var title: String
    var rating: Int
    var secret: String?

    static let schemaMetadata = SchemaMetadata<JourneyRenamed>(
        attributes: [\.id, \.title, \.rating, \.secret], indexed: [[\.title]], preservedOnDeletion: [\.title],
        attributeOptions: [.originalName(\.title, "name")])
}

/// `JourneyRenamed` without `secret`.
final class JourneyWithoutSecretRenamed: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var title: String
    var rating: Int

    static let schemaMetadata = SchemaMetadata<JourneyWithoutSecretRenamed>(
        attributes: [\.id, \.title, \.rating], indexed: [[\.title]], preservedOnDeletion: [\.title])
}

/// Adds a unique constraint on `name`.
final class JourneyUniqueName: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
    var secret: String?

    init(name: String, rating: Int) {
        self.name = name
        self.rating = rating
    }

    static let schemaMetadata = SchemaMetadata<JourneyUniqueName>(
        attributes: [\.id, \.name, \.rating, \.secret], unique: [[\.name]], indexed: [[\.rating]])
}

/// Indexes `rating`.
final class JourneyIndexed: PersistentModel, Codable {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
    var secret: String?

    static let schemaMetadata = SchemaMetadata<JourneyIndexed>(attributes: [\.id, \.name, \.rating, \.secret], indexed: [[\.rating]])
}

/// Stores `rating` as text: a change of type, which only a custom stage can make.
public final class JourneyV2: PersistentModel, Codable {
    public static var entityName: String { "SuiteJourney" }
    public var id = UUID()
    /// The name, as in version 1.
    public var name: String
    /// The rating as text, one `*` per point of the version 1 rating, which the custom stage of
    /// ``SuiteSchemaV2``'s plan writes.
    public var rating: String
    /// As in version 1.
    public var secret: String?

    public static let schemaMetadata = SchemaMetadata<JourneyV2>(attributes: [\.id, \.name, \.rating, \.secret])
}

/// `SuiteStop` under a new entity name.
final class Halt: PersistentModel, Codable {
    static var entityName: String { "SuiteHalt" }
    var id = UUID()
    var place: String

    static let schemaMetadata = SchemaMetadata<Halt>(attributes: [\.id, \.place], originalEntityName: "SuiteStop")
}

/// A new entity.
final class Landmark: PersistentModel, Codable {
    static var entityName: String { "SuiteLandmark" }
    var id = UUID()
    var label: String

    init(label: String) { self.label = label }

    static let schemaMetadata = SchemaMetadata<Landmark>(attributes: [\.id, \.label])
}

/// Version 1: journeys with integer ratings, and stops.
public enum SuiteSchemaV1: VersionedSchema {
    public static let versionIdentifier = Schema.Version(1, 0, 0)
    public static var models: [any PersistentModel.Type] { [JourneyV1.self, StopV1.self] }
}

/// Version 2: ratings as text, and no stops.
public enum SuiteSchemaV2: VersionedSchema {
    public static let versionIdentifier = Schema.Version(2, 0, 0)
    public static var models: [any PersistentModel.Type] { [JourneyV2.self] }
}

/// From version 1 to 2: `willMigrate` keeps each rating, `didMigrate` writes it as stars.
enum SuiteMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SuiteSchemaV1.self, SuiteSchemaV2.self] }
    static var stages: [MigrationStage] { [stage(failing: false)] }

    /// Ratings read by `willMigrate`, by journey, until `didMigrate` writes them.
    static let ratings = Locked<[UUID: Int]>([:])

    static func stage(failing: Bool) -> MigrationStage {
        .custom(fromVersion: SuiteSchemaV1.self, toVersion: SuiteSchemaV2.self,
            willMigrate: { context in
                let journeys = try context.fetch(FetchDescriptor<JourneyV1>())
                ratings.withLock { stash in for journey in journeys { stash[journey.id] = journey.rating } }
            },
            didMigrate: { context in
                for journey in try context.fetch(FetchDescriptor<JourneyV2>()) {
                    let rating = ratings.withLock { $0[journey.id] } ?? 0
                    journey.rating = String(repeating: "*", count: rating)
                }
                try context.save()
                if failing { throw SuiteStageFailure() }
            })
    }
}

/// The same plan with a `didMigrate` that throws after saving.
enum SuiteFailingMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { SuiteMigrationPlan.schemas }
    static var stages: [MigrationStage] { [SuiteMigrationPlan.stage(failing: true)] }
}

struct SuiteStageFailure: Error {}
