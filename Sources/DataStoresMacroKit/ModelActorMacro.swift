import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: an actor that owns a model context and runs on its executor, as SwiftData's.
///
/// - member role: `modelExecutor`, `modelContainer` and `init(modelContainer:)`, which makes a
///   context on the container and wraps it in a `DefaultSerialModelExecutor`;
/// - extension role: the `ModelActor` conformance, which supplies `modelContext`,
///   `unownedExecutor` and `subscript(_:as:)`.
///
/// The members are `public` (SwiftData's are): a member may be more visible than its type.
public enum ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // A declaration that is not an actor is diagnosed by the extension role.
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [
            "public nonisolated let modelExecutor: any StoreProtocol.ModelExecutor",
            "public nonisolated let modelContainer: StoreProtocol.ModelContainer",
            """
            public init(modelContainer: StoreProtocol.ModelContainer) {
                let modelContext = StoreProtocol.ModelContext(modelContainer)
                self.modelExecutor = StoreProtocol.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            let kind = declaration.as(ClassDeclSyntax.self).map { "class '\($0.name.text)'" } ?? ModelMacro.kind(of: declaration)
            context.diagnose(Diagnostic(node: node, message: ModelActorDiagnostic(kind: kind)))
            return []
        }
        // The compiler lists no protocol when the actor conforms already (declared by hand).
        guard !protocols.isEmpty else { return [] }
        let decl: DeclSyntax = "extension \(type.trimmed): StoreProtocol.ModelActor {}"
        return decl.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }
}

/// `@ModelActor` on something that is not an actor.
struct ModelActorDiagnostic: DiagnosticMessage {
    let kind: String
    var message: String {
        "@ModelActor applies to an actor, not to \(kind); declare it as an actor ('@ModelActor actor …'), which runs on "
            + "its context's executor"
    }
    var diagnosticID: MessageID { MessageID(domain: "DataStoresMacros", id: "modelActorNotAnActor") }
    var severity: DiagnosticSeverity { .error }
}
