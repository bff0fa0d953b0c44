import DataStores

// The models of the migration cases: one entity, "SuiteJourney", as several versions of an app
// would declare it, each a type of its own that keeps the entity name.

/// The first version: a journey with a name, a rating and a secret, and its stops.
@Model
public final class JourneyV1 {
    public static var entityName: String { "SuiteJourney" }
    public var id = UUID()
    /// The journey's name: later versions rename it to `title` and make it unique; preserved in
    /// tombstones.
    @Attribute(.preserveValueOnDeletion) public var name: String
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
}

/// A stop: the entity the cases remove and rename.
@Model
public final class StopV1 {
    public static var entityName: String { "SuiteStop" }
    public var id = UUID()
    /// The stop's place, which the cases read after a rename or a removal.
    public var place: String

    /// Makes a stop with a new `id`.
    public init(place: String) { self.place = place }
}

/// Adds an optional attribute.
@Model
final class JourneyWithNote {
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
}

/// Adds a non-optional attribute with a default value.
@Model
final class JourneyWithStars {
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
}

/// Adds a non-optional attribute without a default: a lightweight migration refuses it.
@Model
final class JourneyWithRequiredStars {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
    var secret: String?
    var stars: Int
}

/// Removes `secret`.
@Model
final class JourneyWithoutSecret {
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
}

/// Renames `name` to `title` and indexes it.
@Model
final class JourneyRenamed {
    #Index<JourneyRenamed>([\.title])
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    @Attribute(.preserveValueOnDeletion, originalName: "name") var title: String
    var rating: Int
    var secret: String?
}

/// `JourneyRenamed` without `secret`.
@Model
final class JourneyWithoutSecretRenamed {
    #Index<JourneyWithoutSecretRenamed>([\.title])
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    @Attribute(.preserveValueOnDeletion) var title: String
    var rating: Int
}

/// Adds a unique constraint on `name`.
@Model
final class JourneyUniqueName {
    #Index<JourneyUniqueName>([\.rating])
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    @Attribute(.unique) var name: String
    var rating: Int
    var secret: String?

    init(name: String, rating: Int) {
        self.name = name
        self.rating = rating
    }
}

/// Indexes `rating`.
@Model
final class JourneyIndexed {
    #Index<JourneyIndexed>([\.rating])
    static var entityName: String { "SuiteJourney" }
    var id = UUID()
    var name: String
    var rating: Int
    var secret: String?
}

/// Stores `rating` as text: a change of type, which only a custom stage can make.
@Model
public final class JourneyV2 {
    public static var entityName: String { "SuiteJourney" }
    public var id = UUID()
    /// The name, as in version 1.
    public var name: String
    /// The rating as text, one `*` per point of the version 1 rating, which the custom stage of
    /// ``SuiteSchemaV2``'s plan writes.
    public var rating: String
    /// As in version 1.
    public var secret: String?
}

/// `SuiteStop` under a new entity name.
@Model
final class Halt {
    static var entityName: String { "SuiteHalt" }
    var id = UUID()
    var place: String
    static var originalEntityName: String? { "SuiteStop" }
}

/// A new entity.
@Model
final class Landmark {
    static var entityName: String { "SuiteLandmark" }
    var id = UUID()
    var label: String

    init(label: String) { self.label = label }
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
