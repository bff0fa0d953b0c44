import DataStores
import Foundation
import StoreProtocol
import Testing

// What a backend is told when a container opens it with changed models: through the public API
// only, as a third-party backend sees it. `RecordingStore` records a schema and the migration
// requests it gets; `alterTable(_:)` is the README's example of a SQL backend reading them.

/// The first version, nested in its `VersionedSchema` as SwiftData's samples declare versions.
private enum TripsV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        #Index<Trip>([\.rating])
        var name: String
        var destination: String
        var rating: Int
        var secret: String?
    }
}

/// Renames `destination` to `place` and indexes it, adds `stars` (default 0) and `note`
/// (optional), removes `secret` and the index on `rating`, and makes `name` unique.
private enum TripsV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        #Unique<Trip>([\.name])
        #Index<Trip>([\.place])
        var name: String
        @Attribute(originalName: "destination") var place: String
        var rating: Int
        var stars: Int = 0
        var note: String?
    }
}

@Model private final class PlanTraveller {
    static var entityName: String { "Traveller" }
    static var originalEntityName: String? { "Passenger" }
    var nickname: String
}

@Model private final class PlanGuide {
    static var entityName: String { "Guide" }
    var trip: TripsV1.Trip?
}

/// `Guide.trip` now leads to travellers: its stored keys would name trips.
@Model private final class PlanGuideV2 {
    static var entityName: String { "Guide" }
    var trip: PlanTraveller?
}

/// Two attributes claim `destination`'s values.
@Model private final class PlanTripTwice {
    static var entityName: String { "Trip" }
    @Attribute(originalName: "destination") var place: String
    @Attribute(originalName: "destination") var city: String
}

/// A backend that records `recorded` and keeps the migration requests it gets, storing nothing.
private final class RecordingStore: DataStore {
    typealias Snapshot = DefaultSnapshot

    final class Log: @unchecked Sendable {
        // @unchecked: one test uses it, on one task.
        var recorded: StoredSchema?
        var requests: [DataStoreMigrationRequest] = []
        init(_ recorded: StoredSchema?) { self.recorded = recorded }
    }

    struct Configuration: DataStoreConfiguration {
        typealias Store = RecordingStore
        var name = "recording"
        var schema: Schema?
        var allowsSave = true
        let log: Log
    }

    let configuration: Configuration
    let identifier = "recording"
    let schema: Schema

    init(_ configuration: Configuration) throws {
        self.configuration = configuration
        schema = configuration.schema ?? Schema([])
    }

    var recordedSchema: StoredSchema? { configuration.log.recorded }

    func migrate(_ request: DataStoreMigrationRequest) throws {
        configuration.log.requests.append(request)
        configuration.log.recorded = request.schema
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: [])
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        DataStoreSaveChangesResult(for: identifier)
    }

    func erase() throws {}
}

/// SQLite statements for lightweight changes, one table per entity and one column per attribute:
/// what a SQL backend's `migrate(_:)` runs (in one transaction) when the request has no custom
/// stages. An added unique constraint is a unique index, which SQLite checks against the rows.
func alterTable(_ changes: [SchemaChange]) -> [String] {
    func index(_ entity: String, _ names: [String], unique: Bool) -> String {
        "\"\(unique ? "unique" : "index")_\(entity)_\(names.joined(separator: "_"))\""
    }
    return changes.map { change in
        switch change {
        case .addEntity(let name): "CREATE TABLE \"\(name)\" (\"id\" PRIMARY KEY)"
        case .removeEntity(let name): "DROP TABLE \"\(name)\""
        case .renameEntity(let from, let to): "ALTER TABLE \"\(from)\" RENAME TO \"\(to)\""
        case .addAttribute(let entity, let name, let value):
            "ALTER TABLE \"\(entity)\" ADD COLUMN \"\(name)\"" + (value.map { " DEFAULT \(sqlLiteral($0))" } ?? "")
        case .removeAttribute(let entity, let name): "ALTER TABLE \"\(entity)\" DROP COLUMN \"\(name)\""
        case .renameAttribute(let entity, let from, let to): "ALTER TABLE \"\(entity)\" RENAME COLUMN \"\(from)\" TO \"\(to)\""
        case .addUniqueConstraint(let entity, let names):
            "CREATE UNIQUE INDEX \(index(entity, names, unique: true)) ON \"\(entity)\" (\(names.map { "\"\($0)\"" }.joined(separator: ", ")))"
        case .removeUniqueConstraint(let entity, let names): "DROP INDEX \(index(entity, names, unique: true))"
        case .addIndex(let entity, let names):
            "CREATE INDEX \(index(entity, names, unique: false)) ON \"\(entity)\" (\(names.map { "\"\($0)\"" }.joined(separator: ", ")))"
        case .removeIndex(let entity, let names): "DROP INDEX \(index(entity, names, unique: false))"
        }
    }
}

func sqlLiteral(_ value: SnapshotValue) -> String {
    switch value {
    case .int(let value): "\(value)"
    case .string(let value): "'\(value.replacingOccurrences(of: "'", with: "''"))'"
    case .bool(let value): value ? "1" : "0"
    default: "NULL"
    }
}

@Suite struct MigrationPlanningTests {
    private func open(_ types: [any PersistentModel.Type], recorded: StoredSchema?, version: Schema.Version? = nil,
                      plan: (any SchemaMigrationPlan.Type)? = nil) throws -> RecordingStore.Log {
        let log = RecordingStore.Log(recorded)
        _ = try ModelContainer(for: Schema(types, version: version), migrationPlan: plan,
                               configurations: [RecordingStore.Configuration(log: log)])
        return log
    }

    @Test func aSQLBackendReadsTheChangesToAlterItsTables() throws {
        let log = try open([TripsV2.Trip.self], recorded: StoredSchema(Schema([TripsV1.Trip.self])))
        let request = try #require(log.requests.first)
        #expect(log.requests.count == 1)
        #expect(!request.hasCustomStages)
        #expect(request.recordedSchema == StoredSchema(Schema([TripsV1.Trip.self])))
        #expect(alterTable(request.changes) == [
            "ALTER TABLE \"Trip\" DROP COLUMN \"secret\"",
            "ALTER TABLE \"Trip\" RENAME COLUMN \"destination\" TO \"place\"",
            "ALTER TABLE \"Trip\" ADD COLUMN \"stars\" DEFAULT 0",
            "ALTER TABLE \"Trip\" ADD COLUMN \"note\"",
            "CREATE UNIQUE INDEX \"unique_Trip_name\" ON \"Trip\" (\"name\")",
            "DROP INDEX \"index_Trip_rating\"",
            "CREATE INDEX \"index_Trip_place\" ON \"Trip\" (\"place\")",
        ])
        #expect(request.schema.entity(named: "Trip")?.attribute(named: "stars") == StoredSchema.Attribute(name: "stars", valueType: "Int", isOptional: false))
        #expect(request.schema.supersededFingerprints == [StoredSchema(Schema([TripsV1.Trip.self])).fingerprint])
    }

    @Test func aRowMigratesAsTheChangesSay() throws {
        let log = try open([TripsV2.Trip.self, PlanTraveller.self],
                           recorded: StoredSchema(Schema([TripsV1.Trip.self])).adding(entity: "Passenger", attributes: ["id", "nickname"]))
        let request = try #require(log.requests.first)
        #expect(request.changes.first == .renameEntity(from: "Passenger", to: "Traveller"))
        let row: [String: SnapshotValue] = ["id": .int(1), "name": .string("Iceland"), "destination": .string("Reykjavik"),
                                            "rating": .int(5), "secret": .string("aurora")]
        let migrated = try request.migrateRows(["Trip": [row], "Passenger": [["id": .int(2), "nickname": .string("Ana")]]])
        #expect(migrated["Trip"] == [["id": .int(1), "name": .string("Iceland"), "place": .string("Reykjavik"), "rating": .int(5), "stars": .int(0)]])
        #expect(migrated["Traveller"] == [["id": .int(2), "nickname": .string("Ana")]])
        #expect(migrated["Passenger"] == nil)
        let record = HistoryRecord(transactionNumber: 1, author: nil, timestamp: Date(), changes: [
            .init(kind: .update, entityName: "Trip", primaryKey: .int(1), updatedAttributes: ["destination", "secret", "rating"]),
            .init(kind: .delete, entityName: "Trip", primaryKey: .int(1), tombstone: ["destination": .string("Reykjavik"), "secret": .string("x")]),
            .init(kind: .insert, entityName: "Passenger", primaryKey: .int(2)),
        ])
        let history = request.migrate(record)
        #expect(history.changes.map(\.updatedAttributes) == [["place", "rating"], nil, nil])
        #expect(history.changes[1].tombstone == ["place": .string("Reykjavik")])
        #expect(history.changes[2].entityName == "Traveller")
    }

    @Test func aStoreThatHoldsTheSchemaIsNotMigrated() throws {
        #expect(try open([TripsV1.Trip.self], recorded: StoredSchema(Schema([TripsV1.Trip.self]))).requests.isEmpty)
        #expect(try open([TripsV1.Trip.self], recorded: nil).requests.isEmpty, "a backend that records no schema")
        #expect(try open([TripsV1.Trip.self], recorded: .unrecorded).requests.isEmpty, "an unrecorded store without a plan")
        // Entities the store holds and this container does not are kept: not a migration.
        let wider = StoredSchema(Schema([TripsV1.Trip.self, PlanTraveller.self]))
        #expect(try open([TripsV1.Trip.self], recorded: wider).requests.isEmpty)
    }

    private enum Plan: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
        static var stages: [MigrationStage] { [] }
    }

    @Test func anUnrecordedStoreIsTakenToHoldThePlansFirstVersion() throws {
        let log = try open(TripsV2.models, recorded: .unrecorded, version: TripsV2.versionIdentifier, plan: Plan.self)
        let request = try #require(log.requests.first)
        #expect(request.recordedSchema == StoredSchema(Schema(versionedSchema: TripsV1.self)))
        #expect(request.schema.version == Schema.Version(2, 0, 0))
        #expect(request.changes.contains(.renameAttribute(entity: "Trip", from: "destination", to: "place")))
    }

    @Test func aSchemaTheStoreWasMigratedFromIsRefused() throws {
        var recorded = StoredSchema(Schema([TripsV2.Trip.self]))
        recorded.supersededFingerprints = [StoredSchema(Schema([TripsV1.Trip.self])).fingerprint]
        #expect {
            try open([TripsV1.Trip.self], recorded: recorded)
        } throws: { error in
            (error as? DataStoreError)?.code == .incompatibleSchema && "\(error)".contains("never migrated back")
        }
    }

    @Test func aRelationshipThatLeadsElsewhereIsRefused() throws {
        #expect {
            try open([PlanGuideV2.self], recorded: StoredSchema(Schema([PlanGuide.self])))
        } throws: { error in
            (error as? DataStoreError)?.code == .incompatibleSchema && "\(error)".contains("Guide.trip led to Trip and now leads to Traveller")
        }
    }

    @Test func twoAttributesWithOneOriginalNameAreRefused() throws {
        #expect {
            try open([PlanTripTwice.self], recorded: StoredSchema(Schema([TripsV1.Trip.self])))
        } throws: { error in
            (error as? DataStoreError)?.code == .invalidSchema && "\(error)".contains("two attributes name destination")
        }
    }

    /// Fingerprints are recorded in stores (what each superseded); changing how they are made
    /// would let an app open a store it was migrated from.
    @Test func fingerprintsAreStable() throws {
        let schema = StoredSchema(Schema([TripsV1.Trip.self]))
        #expect(schema.entities.first?.attributes.map(\.name) == ["destination", "id", "name", "rating", "secret"])
        #expect(schema.entities.first?.attributes.map(\.valueType) == ["String", "UUID", "String", "Int", "String"])
        #expect(schema.entities.first?.attributes.map(\.isOptional) == [false, false, false, false, true])
        #expect(schema.fingerprint == "09d4f72b8af5840f")
        #expect(StoredSchema(Schema([TripsV1.Trip.self], version: Schema.Version(1, 0, 0))).fingerprint != schema.fingerprint)
    }
}

extension StoredSchema {
    /// This schema with one more entity of string attributes.
    fileprivate func adding(entity name: String, attributes: [String]) -> StoredSchema {
        var schema = self
        schema.entities.append(Entity(name: name, attributes: attributes.map { Attribute(name: $0, valueType: $0 == "id" ? "UUID" : "String", isOptional: false) },
                                      relationships: [], uniqueConstraints: [], indices: []))
        schema.entities.sort { $0.name < $1.name }
        return schema
    }
}
