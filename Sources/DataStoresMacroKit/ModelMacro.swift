import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a persistent, observable model.
///
/// - member role: the backing data, `id` when the class declares none, the schema metadata, and
///   the encode to and decode from the store's values (``ModelMembers``);
/// - member-attribute role: `@_PersistedProperty(index:)` on each persisted stored `var`;
/// - extension role: the `PersistentModel` and `Observable` conformances.
///
/// A class that inherits from a model class is refused: the compiler hands the roles no
/// `PersistentModel` conformance to add when the superclass already has it.
public enum ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // A declaration that is not a class is diagnosed by the extension role: the compiler
        // expands member roles lazily, and never for an enum nothing looks into.
        guard let model = modelClass(declaration) else { return [] }
        if inheritsFromModel(model, protocols: protocols) {
            context.diagnose(Diagnostic(node: model.name, message: ModelDiagnostic.subclassOfModel(name: model.name.text)))
            return []
        }
        let analysis = ModelDeclaration(model)
        analysis.diagnostics.forEach(context.diagnose)
        return ModelMembers(analysis).declarations
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let model = modelClass(declaration), let variable = member.as(VariableDeclSyntax.self),
              variable.bindingSpecifier.tokenKind == .keyword(.var), variable.bindings.count == 1,
              let identifier = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier
        else { return [] }
        let name = ModelDeclaration.name(identifier)
        let analysis = ModelDeclaration(model)
        if let index = analysis.index(of: name), !(analysis.generatesID && name == "id") {
            return ["@_PersistedProperty(index: \(raw: index))"]
        }
        if analysis.ephemeral.contains(where: { $0.name == name }) {
            return ["@_PersistedProperty(index: \(raw: PersistedPropertyMacro.ephemeralIndex))"]
        }
        return []
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let model = modelClass(declaration) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass(kind: kind(of: declaration))))
            return []
        }
        guard !protocols.isEmpty, !inheritsFromModel(model, protocols: protocols) else { return [] }
        let conformances = protocols.map { protocolType -> String in
            let name = protocolType.trimmedDescription
            let qualified = name.hasSuffix("Observable") ? "Observation.Observable" : "StoreProtocol.PersistentModel"
            return conformanceIsolation + qualified
        }
        let decl: DeclSyntax = "\(raw: conformanceIsolation)extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}"
        return decl.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }

    /// `nonisolated ` before the extension and each conformance where the compiler knows
    /// isolated conformances (Swift 6.2 and later), so that a model declared
    /// `@Model nonisolated class` in a module whose default isolation is the main actor conforms
    /// from any isolation. The extension itself must be `nonisolated` too: the members the
    /// compiler synthesizes there (`hashValue`) would otherwise take the module's main actor.
    #if compiler(>=6.2)
    static let conformanceIsolation = "nonisolated "
    #else
    static let conformanceIsolation = ""
    #endif

    static func modelClass(_ declaration: some DeclGroupSyntax) -> ClassDeclSyntax? {
        declaration.as(ClassDeclSyntax.self)
    }

    static func kind(of declaration: some DeclGroupSyntax) -> String {
        if let named = declaration.asProtocol((any NamedDeclSyntax).self) {
            let keyword = declaration.is(StructDeclSyntax.self) ? "struct" : declaration.is(EnumDeclSyntax.self) ? "enum"
                : declaration.is(ActorDeclSyntax.self) ? "actor" : declaration.is(ProtocolDeclSyntax.self) ? "protocol" : "this declaration"
            return "\(keyword) '\(named.name.text)'"
        }
        return "an extension"
    }

    /// Whether the compiler withheld the `PersistentModel` conformance because the class has it
    /// already, from a superclass (a class that names `PersistentModel` itself is not refused).
    static func inheritsFromModel(_ model: ClassDeclSyntax, protocols: [TypeSyntax]) -> Bool {
        guard let inherited = model.inheritanceClause?.inheritedTypes, !inherited.isEmpty else { return false }
        let namesItself = inherited.contains { $0.type.trimmedDescription.hasSuffix("PersistentModel") }
        return !namesItself && !protocols.contains { $0.trimmedDescription.hasSuffix("PersistentModel") }
    }
}
