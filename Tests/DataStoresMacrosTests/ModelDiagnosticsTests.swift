import SwiftSyntax
import Testing

/// Each declaration `@Model` cannot make work is refused with a message that names it and says
/// what to do (in process; `CompiledDiagnosticsTests` checks the compiler shows them).
@Suite struct ModelDiagnosticsTests {
    @Test(arguments: [
        ("@Model struct Trip { var name = \"\" }", "struct 'Trip'"),
        ("@Model enum Trip { case a }", "enum 'Trip'"),
        ("@Model actor Trip { var name = \"\" }", "actor 'Trip'"),
        ("@Model protocol Trip { }", "protocol 'Trip'"),
    ])
    func modelOnANonClass(source: String, kind: String) {
        #expect(MacroExpansion(source).diagnostics == [
            "1:1: @Model applies to a class, not to \(kind); declare the model as a class ('@Model final class …')",
        ])
    }

    @Test func aKeyPathThatNamesNoPersistedProperty() {
        let expansion = MacroExpansion(#"""
            @Model final class Trip {
                #Unique<Trip>([\.name, \.nmae])
                #Index<Trip>([\.scratch], [\.name.count])
                var name = ""
                @Transient var scratch = 0
                init() {}
            }
            """#)
        #expect(expansion.diagnostics == [
            #"2:28: #Unique key path '\.nmae' names no persisted property of 'Trip'; name one of its stored properties directly (id, name)"#,
            #"3:19: #Index key path '\.scratch' names no persisted property of 'Trip'; name one of its stored properties directly (id, name)"#,
            #"3:32: #Index key path '\.name.count' names no persisted property of 'Trip'; name one of its stored properties directly (id, name)"#,
        ])
    }

    @Test func aTransientOrEphemeralPropertyWithoutADefault() {
        let expansion = MacroExpansion("""
            @Model final class Trip {
                @Transient var scratch: Int
                @Attribute(.ephemeral) var draft: String
                @Transient var note: String?
                @Transient let fixed: Int
                init() { scratch = 0; draft = ""; fixed = 1 }
            }
            """)
        #expect(expansion.diagnostics == [
            "2:5: @Transient property 'scratch' needs an initial value: a model read from the store does not run your "
                + "initializer and sets only stored properties; give 'scratch' a default value or make it optional ('Int?')",
            "3:5: @Attribute(.ephemeral) property 'draft' needs an initial value: a model read from the store does not run your "
                + "initializer and sets only stored properties; give 'draft' a default value or make it optional ('String?')",
            "5:5: @Transient property 'fixed' needs an initial value: a model read from the store does not run your "
                + "initializer and sets only stored properties; give 'fixed' a default value or make it optional ('Int?')",
        ])
    }

    @Test func aLetWithAnInitialValue() {
        let expansion = MacroExpansion("""
            @Model final class Trip {
                let id = UUID()
                init() {}
            }
            """)
        #expect(expansion.diagnostics == [
            "2:5: 'let id' has an initial value, so a model read from the store could not take the stored one; "
                + "declare it 'var id', or drop the initial value and set it in init, or mark it @Transient",
        ])
    }

    @Test func observersSeveralBindingsAndBothMarkers() {
        let expansion = MacroExpansion("""
            @Model final class Trip {
                var name = "" { didSet { print(name) } }
                var a = 0, b = 1
                @Attribute(.unique) @Relationship var stop: Stop?
                init() {}
            }
            """)
        #expect(expansion.diagnostics == [
            "2:5: stored property 'name' of a model cannot have willSet/didSet observers (@Model gives it accessors); "
                + "use withObservationTracking, or mark it @Transient",
            "3:5: declare the model's stored properties one per 'var' (a, b): @Model gives each its own accessors",
            "4:25: 'stop' has both @Attribute and @Relationship; keep @Relationship for a property that holds models, "
                + "@Attribute for any other",
        ])
    }

    /// The compiler hands `@Model` no `PersistentModel` conformance to add when the superclass is
    /// a model already: the class is refused, and nothing is generated (no errors beside it).
    @Test func aSubclassOfAModel() {
        let expansion = MacroExpansion("""
            @Model class Place {
                var name = ""
                init() {}
            }
            """ + "\n" + """
            @Model class Hotel: Place {
                var stars = 0
            }
            """, conformances: [])
        #expect(expansion.messages == [
            "@Model class 'Hotel' inherits from another model class, which a model cannot do (a model's stored values "
                + "and schema belong to one class); make 'Hotel' a model of its own that holds the shared properties, "
                + "or relate the two with @Relationship",
        ])
    }

    @Test func aConstraintOutsideAModel() {
        let expansion = MacroExpansion(#"""
            final class Trip {
                #Unique<Trip>([\.name])
                var name = ""
            }
            """#)
        #expect(expansion.messages == ["#Unique belongs inside the body of an @Model class"])
    }

    /// The generated members are the same in every build: a stored property that only some builds
    /// have is refused (a `@Transient` one, a computed or a static one is fine there).
    @Test func aStoredPropertyInsideIf() {
        let expansion = MacroExpansion("""
            @Model final class Trip {
                var name = ""
                #if DEBUG
                var debugNote = ""
                @Transient var scratch = 0
                var computed: Int { 1 }
                static var shared = 0
                #elseif os(Linux)
                #if canImport(Glibc)
                @Attribute(.ephemeral) var draft = ""
                #endif
                #else
                var other: Int?
                var a = 0, b = 1
                #endif
                init() {}
            }
            """)
        let advice = " of a model is inside '#if', which @Model cannot persist (the schema and the stored values it "
            + "generates are the same in every build); move it out of the '#if', or mark it @Transient"
        #expect(expansion.diagnostics == [
            "4:5: stored property 'debugNote'" + advice,
            "10:5: stored property 'draft'" + advice,
            "13:5: stored property 'other'" + advice,
            "14:5: stored properties 'a', 'b' of a model are inside '#if', which @Model cannot persist (the schema and the "
                + "stored values it generates are the same in every build); move them out of the '#if', or mark them @Transient",
        ])
        #expect(!expansion.text.contains("debugNote\""))
    }

    /// `@ObservationIgnored` is refused with the advice to use `@Transient`; together with
    /// `@Transient` it is accepted.
    @Test func observationIgnored() {
        let expansion = MacroExpansion("""
            @Model final class Trip {
                @ObservationIgnored var cache = 0
                @ObservationIgnored @Transient var other = 0
                @Observation.ObservationIgnored var qualified = 0
                init() {}
            }
            """)
        #expect(expansion.diagnostics == [(2, "cache"), (4, "qualified")].map { line, name in
            "\(line):5: '@ObservationIgnored var \(name)' in a model: @Model persists and observes every stored property "
                + "it does not skip; mark '\(name)' @Transient to keep it out of the store (not stored, not observed, and "
                + "its initial value in a model read from the store), or drop @ObservationIgnored to persist it"
        })
    }
}
