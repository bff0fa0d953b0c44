import DataStores
import MemoryStore
import StoreConformance
import Testing

/// A `@ModelActor` as the talks write one: background inserts, identifiers handed back.
@ModelActor
actor VoyageImporter {
    func importVoyages(named names: [String]) throws -> [PersistentIdentifier] {
        let voyages = names.map { SuiteVoyage(name: $0) }
        for voyage in voyages { modelContext.insert(voyage) }
        try modelContext.save()
        return voyages.map(\.persistentModelID)
    }

    func name(of id: PersistentIdentifier) -> String? {
        self[id, as: SuiteVoyage.self]?.name
    }

    func bucketItemTitle(of id: PersistentIdentifier) -> String? {
        self[id, as: SuiteBucketItem.self]?.title
    }

    /// Whether the executor the runtime runs the actor on is its model executor (compared as
    /// the runtime's references: `UnownedSerialExecutor` is not Equatable), and the call is
    /// isolated to it (traps otherwise).
    func runsOnItsModelExecutor() -> Bool {
        preconditionIsolated()
        guard let serial = modelExecutor as? DefaultSerialModelExecutor else { return false }
        let runs = withUnsafeBytes(of: unownedExecutor) { Array($0) }
        return runs == withUnsafeBytes(of: serial.asUnownedSerialExecutor()) { Array($0) }
    }
}

/// `@ModelActor` (issue 31): the macro's members, a background insert the main context fetches.
@MainActor @Suite struct ModelActorTests {
    let container: ModelContainer

    init() throws {
        container = try ModelContainer(for: Schema(ConformanceModels.types), configurations: [MemoryStoreConfiguration()])
    }

    @Test func aBackgroundInsertIsFetchedByTheMainContext() async throws {
        let importer = VoyageImporter(modelContainer: container)
        let ids = try await importer.importVoyages(named: ["Iceland", "Chile"])
        let main = container.mainContext
        let fetched = try main.fetch(FetchDescriptor<SuiteVoyage>(sortBy: [SortDescriptor(\.name)]))
        #expect(fetched.map(\.name) == ["Chile", "Iceland"])
        let iceland = try #require(try main.model(for: ids[0]) as? SuiteVoyage)
        #expect(iceland.name == "Iceland")
    }

    @Test func theGeneratedMembers() async throws {
        let importer = VoyageImporter(modelContainer: container)
        #expect(importer.modelContainer === container)
        #expect(importer.modelExecutor is DefaultSerialModelExecutor)
        #expect(await importer.runsOnItsModelExecutor())
        let ids = try await importer.importVoyages(named: ["Peru"])
        #expect(await importer.name(of: ids[0]) == "Peru", "subscript(_:as:) finds the model")
        #expect(await importer.bucketItemTitle(of: ids[0]) == nil, "as another type: nil")
        // A change saved on the main context is what the actor's context fetches.
        let peru = try #require(try container.mainContext.model(for: ids[0]) as? SuiteVoyage)
        peru.name = "Peru in May"
        try container.mainContext.save()
        let other = VoyageImporter(modelContainer: container)
        #expect(await other.name(of: ids[0]) == "Peru in May")
    }
}
