import Testing

/// The expansion `@ModelActor` gives an actor: SwiftData's members and conformance.
@Suite struct ModelActorExpansionTests {
    @Test func anActorGetsTheContainerExecutorInitializerAndConformance() {
        let expansion = MacroExpansion("""
            @ModelActor actor Importer {
                func run() {}
            }
            """)
        #expect(expansion.diagnostics == [])
        #expect(expansion.text == """
            actor Importer {
                func run() {}

                public nonisolated let modelExecutor: any StoreProtocol.ModelExecutor

                public nonisolated let modelContainer: StoreProtocol.ModelContainer

                public init(modelContainer: StoreProtocol.ModelContainer) {
                    let modelContext = StoreProtocol.ModelContext(modelContainer)
                    self.modelExecutor = StoreProtocol.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Importer: StoreProtocol.ModelActor {
            }
            """)
    }

    @Test func aStructIsRefused() {
        let expansion = MacroExpansion("@ModelActor struct Importer {}")
        #expect(expansion.messages == [
            "@ModelActor applies to an actor, not to struct 'Importer'; declare it as an actor ('@ModelActor actor …'), "
                + "which runs on its context's executor",
        ])
    }
}
