import DataStoresMacroKit
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros

/// Expands the model macros in `source` in process, as the compiler would (without
/// SwiftSyntaxMacrosTestSupport, which the toolchain's SwiftSyntax does not ship).
struct MacroExpansion {
    /// The source with every macro expanded, formatted as the compiler would see it.
    let text: String
    /// The macros' diagnostics, each as `line:column: message`. (A node the expansion detached
    /// from the file, as a member role's class in a file of several, has its own positions.)
    let diagnostics: [String]
    /// The diagnostics' messages alone.
    var messages: [String] { diagnostics.map { String($0.drop { $0 != " " }.dropFirst()) } }

    /// The macros by the name a source spells them; `conformances` is what the compiler hands
    /// `@Model`'s member and extension roles (none when a superclass already conforms).
    init(_ source: String, conformances: [TypeSyntax] = ["PersistentModel", "Observable"]) {
        let file = Parser.parse(source: source)
        let specs: [String: MacroSpec] = [
            "Model": MacroSpec(type: ModelMacro.self, conformances: conformances),
            "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
            "Attribute": MacroSpec(type: MarkerMacro.self),
            "Relationship": MacroSpec(type: MarkerMacro.self),
            "Transient": MacroSpec(type: MarkerMacro.self),
            "Unique": MacroSpec(type: SchemaConstraintMacro.self),
            "Index": MacroSpec(type: SchemaConstraintMacro.self),
            "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
        ]
        let context = BasicMacroExpansionContext(sourceFiles: [file: .init(moduleName: "Models", fullFilePath: "Models.swift")])
        let expanded = file.expand(macroSpecs: specs, contextGenerator: { BasicMacroExpansionContext(sharingWith: context, lexicalContext: $0.allMacroLexicalContexts()) }, indentationWidth: .spaces(4))
        text = expanded.description
        let converter = SourceLocationConverter(fileName: "Models.swift", tree: file)
        diagnostics = context.diagnostics.map { diagnostic in
            let location = diagnostic.location(converter: converter)
            return "\(location.line):\(location.column): \(diagnostic.message)"
        }
    }
}
