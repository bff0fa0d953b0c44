import Testing

/// What the compiler says for the container surface of issue 31, compiled by a child `swiftc`:
/// SwiftUI-only SwiftData names point to what to write instead, `@ModelActor` applies to an
/// actor, and the main context belongs to the main actor.
@Suite struct ContainerSurfaceCompileTests {
    let compiler: ModelCompiler

    init() throws { compiler = try ModelCompiler() }

    func errorMessages(_ source: String) throws -> [String] {
        try compiler.typecheck("import DataStores\n" + source).errorMessages
    }

    static let model = """
        @Model final class Trip {
            var name = ""
            init() {}
        }

        """

    @Test(arguments: [
        "@Query var trips: [Trip]",
        "@Query(sort: \\Trip.name) var trips: [Trip]",
        "@Query(filter: #Predicate<Trip> { $0.name != \"\" }, sort: [SortDescriptor(\\Trip.name)]) var trips: [Trip]",
        "@Query(FetchDescriptor<Trip>()) var trips: [Trip]",
    ])
    func queryPointsToFetchDescriptor(declaration: String) throws {
        let messages = try errorMessages(Self.model + "struct TripList {\n    \(declaration)\n}\n")
        #expect(messages.contains(
            "'Query' is unavailable: @Query needs SwiftUI, which this platform does not have; fetch with "
                + "'try modelContext.fetch(FetchDescriptor<Model>(predicate: …, sortBy: …))' and fetch again after "
                + "ModelContext.didSave (or didSaveSummaries())"), "\(messages)")
    }

    @Test(arguments: ["struct", "class", "enum", "protocol"])
    func modelActorOnANonActor(keyword: String) throws {
        let body = keyword == "enum" ? "case a" : ""
        let messages = try errorMessages("@ModelActor \(keyword) Importer { \(body) }")
        #expect(messages.contains { $0.hasPrefix(
            "@ModelActor applies to an actor, not to \(keyword) 'Importer'; declare it as an actor ('@ModelActor actor …')") },
            "\(messages)")
    }

    @Test func aModelActorCompilesAsTheTalksWriteIt() throws {
        let output = try compiler.typecheck("import DataStores\n" + Self.model + """
            @ModelActor
            actor Importer {
                var imported = 0
                func importTrip() throws -> PersistentIdentifier {
                    let trip = Trip()
                    modelContext.insert(trip)
                    try modelContext.save()
                    imported += 1
                    return trip.persistentModelID
                }
                func trip(_ id: PersistentIdentifier) -> Trip? { self[id, as: Trip.self] }
            }
            func run(_ container: ModelContainer) async throws {
                let importer = Importer(modelContainer: container)
                _ = try await importer.importTrip()
                _ = importer.modelContainer
                _ = importer.modelExecutor
            }
            """)
        #expect(output.status == 0, "\(output.text)")
    }

    @Test func theModelActorsContextIsTheActors() throws {
        let messages = try errorMessages(Self.model + """
            @ModelActor actor Importer {}
            func peek(_ importer: Importer) { _ = importer.modelContext }
            """)
        #expect(messages.contains { $0.contains("actor-isolated property 'modelContext' can not be referenced from a nonisolated context") },
                "\(messages)")
    }

    @Test func theMainContextBelongsToTheMainActor() throws {
        let messages = try errorMessages("func background(_ container: ModelContainer) { _ = container.mainContext }")
        #expect(messages.contains {
            $0.contains("main actor-isolated property 'mainContext' can not be referenced from a nonisolated context")
        }, "\(messages)")
    }
}
