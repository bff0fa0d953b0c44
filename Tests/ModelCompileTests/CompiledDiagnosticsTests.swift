import Testing

/// Each declaration the model macros refuse, compiled by a child `swiftc` as a user's would be:
/// the compiler shows the macro's message at the declaration it names. The type-based errors
/// (an attribute type no store keeps, `@Relationship` on a property that holds no model, an
/// inverse that does not lead back) come from the overloads the expansion calls.
@Suite struct CompiledDiagnosticsTests {
    let compiler: ModelCompiler

    init() throws { compiler = try ModelCompiler() }

    /// The errors of `source` (after `import DataStores`), each `line:column: message`; the
    /// source's first line is line 2.
    func errors(_ source: String) throws -> [String] {
        try compiler.typecheck("import DataStores\n" + source).errors
    }

    /// Every error message of `source`, those in the expansion included.
    func errorMessages(_ source: String) throws -> [String] {
        try compiler.typecheck("import DataStores\n" + source).errorMessages
    }

    @Test(arguments: [("struct", "struct"), ("enum", "enum"), ("actor", "actor"), ("protocol", "protocol")])
    func modelOnANonClass(keyword: String, kind: String) throws {
        let body = keyword == "enum" ? "case a" : keyword == "protocol" ? "" : "var name = \"\""
        let errors = try errors("@Model \(keyword) Trip { \(body) }")
        #expect(errors == ["2:1: @Model applies to a class, not to \(kind) 'Trip'; declare the model as a class "
            + "('@Model final class …')"])
    }

    @Test func aKeyPathThatNamesNoPersistedProperty() throws {
        let errors = try errors(#"""
            @Model final class Trip {
                #Unique<Trip>([\.name, \.scratch])
                var name = ""
                @Transient var scratch = 0
                init() {}
            }
            """#)
        #expect(errors == [
            #"3:28: #Unique key path '\.scratch' names no persisted property of 'Trip'; name one of its stored "#
                + "properties directly (id, name)",
        ])
    }

    @Test func aTransientPropertyWithoutADefault() throws {
        let errors = try errors("""
            @Model final class Trip {
                @Transient var scratch: Int
                init() { scratch = 0 }
            }
            """)
        #expect(errors == ["3:5: @Transient property 'scratch' needs an initial value: a model read from the store "
            + "does not run your initializer and sets only stored properties; give 'scratch' a default value or make it "
            + "optional ('Int?')"])
    }

    @Test func aLetWithAnInitialValue() throws {
        let errors = try errors("""
            @Model final class Trip {
                let code = 7
                init() {}
            }
            """)
        #expect(errors == ["3:5: 'let code' has an initial value, so a model read from the store could not take the "
            + "stored one; declare it 'var code', or drop the initial value and set it in init, or mark it @Transient"])
    }

    @Test func aSubclassOfAModel() throws {
        let errors = try errors("""
            @Model class Place {
                var name = ""
                init() {}
            }
            @Model class Hotel: Place {
                var stars = 0
            }
            """)
        #expect(errors == ["6:14: @Model class 'Hotel' inherits from another model class, which a model cannot do "
            + "(a model's stored values and schema belong to one class); make 'Hotel' a model of its own that holds the "
            + "shared properties, or relate the two with @Relationship"])
    }

    @Test func anAttributeTypeNoStoreKeeps() throws {
        let errors = try errorMessages("""
            final class Engine {}
            @Model final class Car {
                var engine: Engine
                init(engine: Engine) { self.engine = engine }
            }
            """)
        #expect(errors.contains { $0.contains("this type cannot be stored as an attribute") && $0.contains("@Transient") },
                "\(errors)")
    }

    /// The documented rule (DataStores.md, Relationships) said by the compiler: a to-one must be
    /// optional. Before, the message said the model type could not be stored as an attribute.
    @Test func aToOneRelationshipThatIsNotOptional() throws {
        let errors = try errorMessages("""
            @Model final class Owner {
                var name = ""
                init() {}
            }
            @Model final class Pet {
                var owner: Owner
                init(owner: Owner) { self.owner = owner }
            }
            """)
        #expect(errors.contains { $0.contains("a to-one relationship must be optional") }, "\(errors)")
        #expect(!errors.contains { $0.contains("cannot be stored as an attribute") }, "\(errors)")
    }

    /// SwiftData's lazily loaded fetch is refused naming what to use (an adversary's port met
    /// "extra argument 'batchSize' in call").
    @Test func aLazilyLoadedFetch() throws {
        let errors = try errorMessages("""
            @Model final class Trip {
                var name = ""
                init() {}
            }
            func load(_ context: ModelContext) throws {
                _ = try context.fetch(FetchDescriptor<Trip>(), batchSize: 10)
            }
            """)
        #expect(errors.contains { $0.contains("a lazily loaded fetch is not available here: use fetch(_:) for an array, or enumerate(_:batchSize:_:)") }, "\(errors)")
    }

    @Test func aRelationshipOnAPropertyThatHoldsNoModel() throws {
        let errors = try errorMessages("""
            @Model final class Trip {
                @Relationship(deleteRule: .cascade) var tags: [String] = []
                init() {}
            }
            """)
        #expect(errors.contains { $0.contains("@Relationship needs a property whose type is a model") }, "\(errors)")
    }

    @Test func anInverseThatDoesNotLeadBack() throws {
        let errors = try errorMessages(#"""
            @Model final class Item {
                var title = ""
                init() {}
            }
            @Model final class Trip {
                @Relationship(inverse: \Item.title) var items: [Item] = []
                init() {}
            }
            """#)
        #expect(errors.contains { $0.contains("the inverse must be a key path of the destination model back to this model") },
                "\(errors)")
    }

    /// In a module whose default isolation is the main actor, `@Model nonisolated class`
    /// compiles with no error and no warning (the generated conformances are nonisolated).
    @Test func aNonisolatedModelUnderMainActorDefaultIsolation() throws {
        let output = try compiler.typecheck("""
            import DataStores

            @Model nonisolated class Trip {
                var name: String
                var startDate = Date.now
                var tags: [String] = []
                init(name: String) { self.name = name }
            }

            nonisolated func roundTrip(_ trip: Trip) async throws -> String {
                let values = try trip.storedValues()
                return try await Task.detached { try Trip(storedValues: values).name }.value
            }
            """, arguments: ["-default-isolation", "MainActor"])
        #expect(output.status == 0, "\(output.text)")
        #expect(!output.text.contains("warning:"), "\(output.text)")
    }

    /// A stored property inside `#if` in a model body is refused at the property, as the user's
    /// compiler shows it (the condition true, so the property is there).
    @Test func aStoredPropertyInsideIf() throws {
        let errors = try errors("""
            @Model final class Trip {
                var name = ""
                #if true
                var debugNote = ""
                @Transient var scratch = 0
                #endif
                init() {}
            }
            """)
        #expect(errors == ["5:5: stored property 'debugNote' of a model is inside '#if', which @Model cannot persist (the "
            + "schema and the stored values it generates are the same in every build); move it out of the '#if', or mark "
            + "it @Transient"])
    }

    /// `@ObservationIgnored` alone is refused with the advice to use `@Transient`; with
    /// `@Transient` it compiles.
    @Test func observationIgnored() throws {
        let errors = try errors("""
            @Model final class Trip {
                @ObservationIgnored var cache = 0
                @ObservationIgnored @Transient var other = 0
                init() {}
            }
            """)
        #expect(errors == ["3:5: '@ObservationIgnored var cache' in a model: @Model persists and observes every stored "
            + "property it does not skip; mark 'cache' @Transient to keep it out of the store (not stored, not observed, "
            + "and its initial value in a model read from the store), or drop @ObservationIgnored to persist it"])
    }
}
