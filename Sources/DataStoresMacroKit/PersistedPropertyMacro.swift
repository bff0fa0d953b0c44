import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(index:)`, which `@Model` puts on each persisted stored `var`: accessors
/// that read and write typed storage `_name` (a peer), report to Observation, and mark attribute
/// `index` changed. `_modify` lets `trip.tags.append(x)` change the array in place (no copy) and
/// still be seen.
public enum PersistedPropertyMacro: AccessorMacro, PeerMacro {
    /// The index of an `@Attribute(.ephemeral)` property: observed, never stored or marked changed.
    static let ephemeralIndex = -1

    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (name, reference, _, _) = property(declaration) else { return [] }
        let index = index(node)
        return [
            """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = initialValue
            }
            """,
            """
            get {
                _$backingData.access(self, keyPath: \\.\(raw: reference))
                return _\(raw: name)
            }
            """,
            """
            set {
                _$backingData.withMutation(of: self, keyPath: \\.\(raw: reference), at: \(raw: index)) {
                    _\(raw: name) = newValue
                }
            }
            """,
            """
            _modify {
                _$backingData.access(self, keyPath: \\.\(raw: reference))
                _$backingData.willModify(self, keyPath: \\.\(raw: reference), at: \(raw: index))
                defer {
                    _$backingData.didModify(self, keyPath: \\.\(raw: reference), at: \(raw: index))
                }
                yield &_\(raw: name)
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (name, _, type, initializer) = property(declaration) else { return [] }
        let typeText = type.map { ": \($0.trimmedDescription)" } ?? ""
        let initializerText = initializer.map { " = \($0.trimmedDescription)" } ?? ""
        return ["@Transient private var _\(raw: name)\(raw: typeText)\(raw: initializerText)"]
    }

    /// The name (`default`, which the storage `_default` is named after), the name as code refers
    /// to it (`` `default` ``), the written type and the initial value of the single-binding `var`
    /// the macro is on.
    private static func property(_ declaration: some DeclSyntaxProtocol) -> (String, String, TypeSyntax?, ExprSyntax?)? {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
              let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else { return nil }
        return (ModelDeclaration.name(identifier), identifier.trimmed.text, binding.typeAnnotation?.type, binding.initializer?.value)
    }

    private static func index(_ node: AttributeSyntax) -> String {
        guard case .argumentList(let arguments)? = node.arguments, let first = arguments.first else { return "\(ephemeralIndex)" }
        return first.expression.trimmedDescription
    }
}

/// `@Attribute`, `@Relationship` and `@Transient`: markers that `@Model` reads; on their own they
/// add nothing.
public enum MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `#Unique` and `#Index`: constraints that `@Model` reads from the class body; they expand to
/// nothing, and say so when written anywhere else.
public enum SchemaConstraintMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let inModel = context.lexicalContext.first.flatMap { $0.as(ClassDeclSyntax.self) }.map { model in
            model.attributes.contains {
                ["Model", "DataStores.Model"].contains($0.as(AttributeSyntax.self)?.attributeName.trimmedDescription)
            }
        } ?? false
        if !inModel {
            context.diagnose(.init(node: node, message: ModelDiagnostic.constraintOutsideModel(macro: node.macroName.text)))
        }
        return []
    }
}
