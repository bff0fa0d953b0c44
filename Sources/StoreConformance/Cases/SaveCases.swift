import Foundation
import StoreProtocol

/// All-or-nothing saves, unique constraints and read-only stores.
enum SaveCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "saving", name: "aFailedSaveChangesNothingAndKeepsPendingChanges", requires: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["A", "B"], into: container)
            let before = try tripState(container)
            let transactionsBefore = target.capabilities.contains(.history) ? try history(container).count : 0
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "C", startDate: SuiteTrip.day(7)))
            let b = try require(try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "B" })).first, "B")
            b.name = "A"
            b.startDate = SuiteTrip.day(0)   // now collides with A on the unique constraint
            try checkThrows(DataStoreError(.constraintViolation, ""), "saving an update that breaks a unique constraint") {
                try context.save()
            }
            try checkEqual(try tripState(container), before, "stored trips after the failed save")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).count, transactionsBefore, "transactions after the failed save")
            }
            try checkEqual(context.hasChanges, true, "the context keeps its pending changes")
            b.name = "B2"
            try context.save()
            try checkEqual(try sortedTripNames(container), ["A", "B2", "C"], "names after fixing and saving again")
        },
        ConformanceCase(area: "saving", name: "aSaveWithAnUnknownModelSendsNothing") { target in
            let container = try ModelContainer(for: Schema([SuiteTrip.self]), configurations: [target.makeConfiguration()])
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Iceland"))
            context.insert(SuiteReading(sensor: "t1", timestamp: SuiteTrip.day(0), value: 1))
            try checkThrows(DataStoreError(.unknownEntity, ""), "saving a model the schema does not hold") { try context.save() }
            try checkEqual(try storedTripNames(container), [], "stored trips")
        },
        ConformanceCase(area: "saving", name: "uniqueCollisionBecomesAnUpdate", requires: .updates) { target in
            let container = try target.makeContainer()
            let original = try insertTrips(["Iceland"], into: container)[0]
            let context = ModelContext(container)
            let duplicate = SuiteTrip(name: "Iceland", destination: "Akureyri", startDate: SuiteTrip.day(0), rating: 4)
            context.insert(duplicate)
            try context.save()
            let stored = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>())
            try checkEqual(stored.count, 1, "trips after inserting a duplicate")
            try checkEqual(stored.first?.id, original.id, "the stored trip keeps its id")
            try checkEqual(stored.first?.destination, "Akureyri", "the stored trip takes the new values")
            try checkEqual(duplicate.id, original.id, "the inserted instance now stands for the stored trip")
            let refetched = try context.fetch(FetchDescriptor<SuiteTrip>())
            try check(refetched.count == 1 && refetched[0] === duplicate, "fetching in the same context returns the inserted instance")
            if target.capabilities.contains(.history) {
                let last = try require(try history(container).last, "the upsert's transaction")
                try checkEqual(kinds(last), ["update SuiteTrip"], "the upsert's changes")
            }
        },
        ConformanceCase(area: "saving", name: "insertingAnExistingIdUpdates", requires: .updates) { target in
            let container = try target.makeContainer()
            let original = try insertTrips(["Iceland"], into: container)[0]
            let copy = SuiteTrip(name: "Iceland renamed", startDate: SuiteTrip.day(3))
            copy.id = original.id
            let context = ModelContext(container)
            context.insert(copy)
            try context.save()
            try checkEqual(try storedTripNames(container), ["Iceland renamed"], "names after inserting an existing id")
        },
        ConformanceCase(area: "saving", name: "readOnlyStoreRefusesSaves") { target in
            var configuration = try target.makeConfiguration()
            configuration.allowsSave = false
            let container = try target.open(configuration)
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Iceland"))
            try checkThrows(DataStoreError(.readOnly, ""), "saving into a read-only store") { try context.save() }
            try checkEqual(context.hasChanges, true, "pending changes after the refused save")
            var savedOnly = FetchDescriptor<SuiteTrip>()
            savedOnly.includePendingChanges = false
            try checkEqual(try context.fetchCount(savedOnly), 0, "stored trips")
        },
        ConformanceCase(area: "saving", name: "readOnlyReopenReadsButRefusesWrites", requires: .persistence) { target in
            let configuration = try target.makeConfiguration()
            try insertTrips(["Iceland"], into: try target.open(configuration))
            var readOnly = configuration
            readOnly.allowsSave = false
            let container = try target.open(readOnly)
            try checkEqual(try storedTripNames(container), ["Iceland"], "names read through a read-only configuration")
            let context = ModelContext(container)
            context.insert(SuiteTrip(name: "Japan", startDate: SuiteTrip.day(1)))
            try checkThrows(DataStoreError(.readOnly, ""), "saving through a read-only configuration") { try context.save() }
            try checkThrows(DataStoreError(.readOnly, ""), "batch delete through a read-only configuration") {
                try context.delete(model: SuiteTrip.self)
            }
            try checkEqual(try storedTripNames(try target.open(configuration)), ["Iceland"], "names after the refused writes")
        },
    ]
}

/// Bad input gets a typed error.
enum ErrorCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "errors", name: "fetchingAnUnknownModelThrows") { target in
            let container = try ModelContainer(for: Schema([SuiteTrip.self]), configurations: [target.makeConfiguration()])
            try checkThrows(DataStoreError(.unknownEntity, ""), "fetching a model the schema does not hold") {
                _ = try ModelContext(container).fetch(FetchDescriptor<SuiteReading>())
            }
        },
        ConformanceCase(area: "errors", name: "anUndecodableSnapshotThrows") { target in
            let container = try target.makeContainer()
            let id = PersistentIdentifier(entityName: "SuiteTrip", primaryKey: .uuid(UUID()))
            try saveDirectly([DefaultSnapshot(persistentIdentifier: id, values: [
                "id": id.primaryKey, "name": .int(5), "destination": .string("x"),
                "startDate": .date(SuiteTrip.day(0)), "rating": .int(1),
            ])], into: container.stores[0])
            try checkThrows(DataStoreError(.undecodableSnapshot, ""), "fetching a snapshot whose name is a number") {
                _ = try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>())
            }
        },
        ConformanceCase(area: "errors", name: "metadataNamingAComputedPropertyThrows") { target in
            try checkThrows(DataStoreError(.invalidSchema, ""), "opening a container whose metadata names a computed property") {
                _ = try ModelContainer(for: Schema([SuiteBadMetadata.self]), configurations: [target.makeConfiguration()])
            }
        },
        ConformanceCase(area: "errors", name: "aContainerWithoutConfigurationsThrows") { _ in
            try checkThrows(DataStoreError(.invalidSchema, ""), "opening a container with no configuration") {
                _ = try ModelContainer(for: ConformanceModels.schema, configurations: [])
            }
        },
    ]
}

/// A model whose metadata names a computed property in a unique constraint: `@Model` refuses
/// that at compile time, but a code generator that writes the expansion's members by hand (they
/// are public for it) can; the container must refuse it.
final class SuiteBadMetadata: PersistentModel {
    let persistentBackingData = ModelBacking()
    var id = UUID()
    var name = ""
    var shout: String { name.uppercased() }
    static let schemaMetadata = SchemaMetadata<SuiteBadMetadata>(
        properties: [.attribute("id", \.id), .attribute("name", \.name)], unique: [[\.shout]])

    init(storedValues values: [String: SnapshotValue]) throws {
        id = try ModelCoding.decode(values["id"], attribute: "id", of: "SuiteBadMetadata")
        name = try ModelCoding.decode(values["name"], attribute: "name", of: "SuiteBadMetadata")
    }

    func storedValues() throws -> [String: SnapshotValue] {
        ["id": try ModelCoding.encode(id), "name": try ModelCoding.encode(name)]
    }

    func assignStoredValues(_ values: [String: SnapshotValue]) throws {
        let stored = try SuiteBadMetadata(storedValues: values)
        (id, name) = (stored.id, stored.name)
    }
}

/// What an insert-only store must refuse, changing nothing.
enum InsertOnlyCases {
    static let refused = DataStoreError(.unsupportedFeature, "")

    static let all: [ConformanceCase] = [
        ConformanceCase(area: "insertOnly", name: "updatesAreRefused", lacks: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            let trip = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            trip.destination = "Changed"
            try checkThrows(refused, "saving an update into an insert-only store") { try context.save() }
            let stored = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            try checkEqual(stored.destination, "Nowhere", "stored destination after the refused update")
        },
        ConformanceCase(area: "insertOnly", name: "deletesAreRefused", lacks: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            context.delete(try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip"))
            try checkThrows(refused, "saving a delete into an insert-only store") { try context.save() }
            try checkEqual(try storedTripNames(container), ["Iceland"], "stored trips after the refused delete")
        },
        ConformanceCase(area: "insertOnly", name: "batchDeletesAreRefused", lacks: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            try checkThrows(refused, "a batch delete in an insert-only store") {
                try ModelContext(container).delete(model: SuiteTrip.self)
            }
            try checkEqual(try storedTripNames(container), ["Iceland"], "stored trips after the refused batch delete")
        },
        ConformanceCase(area: "insertOnly", name: "aSaveMixingInsertsAndUpdatesIsRefusedWhole", lacks: .updates) { target in
            let container = try target.makeContainer()
            try insertTrips(["Iceland"], into: container)
            let context = ModelContext(container)
            let trip = try require(try context.fetch(FetchDescriptor<SuiteTrip>()).first, "the trip")
            trip.rating = 9
            context.insert(SuiteTrip(name: "Japan", startDate: SuiteTrip.day(1)))
            try checkThrows(refused, "saving inserts with an update") { try context.save() }
            try checkEqual(try storedTripNames(container), ["Iceland"], "stored trips: the insert must not be saved either")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).count, 1, "transactions after the refused save")
            }
        },
    ]
}
