import SwiftDiagnostics
import SwiftSyntax

/// What `@Model` reads from a class declaration: its persisted properties in order, its
/// `#Unique` and `#Index` constraints, and what is wrong with them.
///
/// Every role of `@Model` (and so every member `@_PersistedProperty` is put on) reads the same
/// class the same way, so the indices the accessors use are the metadata's positions.
struct ModelDeclaration {
    /// One stored property of the class that the store keeps (or, `.ephemeral`, that is only
    /// observed).
    struct Property {
        /// The name as the store and the schema spell it: `default` for `` var `default` ``.
        let name: String
        /// The name as Swift code refers to it: `` `default` `` when written escaped.
        let reference: String
        /// The type as written; `nil` when the initializer gives it (`var startDate = Date.now`).
        let type: TypeSyntax?
        /// The initial value as written, `nil` when none.
        let initializer: ExprSyntax?
        let isLet: Bool
        /// `@Attribute(...)`, when present.
        let attribute: AttributeSyntax?
        /// `@Relationship(...)`, when present.
        let relationship: AttributeSyntax?
        /// `@Attribute(.ephemeral)`: observed accessors, not stored.
        let isEphemeral: Bool
        /// The declaration, for diagnostics.
        let node: VariableDeclSyntax

        /// Whether the type is written as optional (`T?`, `T!`, `Optional<T>`).
        var isOptional: Bool { type.map(ModelDeclaration.isOptional) ?? false }
    }

    /// The class's name as written (`Trip`).
    let typeName: String
    /// Whether `@Model` generates `id`: the class declares none.
    let generatesID: Bool
    /// The persisted properties (attributes and relationships) in declaration order, `.ephemeral`
    /// ones excluded.
    let persisted: [Property]
    /// The `.ephemeral` attributes: observed, not stored.
    let ephemeral: [Property]
    /// Each `#Unique` constraint's key paths, rooted at the class (`\Trip.name`).
    let unique: [[String]]
    /// Each `#Index` group's key paths, rooted at the class.
    let indexed: [[String]]
    /// What cannot work, each at the node it is about.
    let diagnostics: [Diagnostic]

    /// The names in `properties:` order: `id` first when generated.
    var propertyNames: [String] { (generatesID ? ["id"] : []) + persisted.map(\.name) }

    /// The metadata position of a persisted property: its `_PersistedProperty(index:)`.
    func index(of name: String) -> Int? {
        propertyNames.firstIndex(of: name)
    }

    init(_ declaration: ClassDeclSyntax) {
        typeName = declaration.name.text
        var persisted: [Property] = []
        var ephemeral: [Property] = []
        var unique: [[String]] = []
        var indexed: [[String]] = []
        var diagnostics: [Diagnostic] = []
        var declaresID = false
        var constraintNodes: [MacroExpansionDeclSyntax] = []

        for member in declaration.memberBlock.members {
            if let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
               ["Unique", "Index"].contains(expansion.macroName.text) {
                constraintNodes.append(expansion)
                continue
            }
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                for variable in Self.storedVariables(in: conditional) {
                    let names = variable.bindings.compactMap { $0.pattern.as(IdentifierPatternSyntax.self).map { Self.name($0.identifier) } }
                    diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.conditionallyCompiled(names: names)))
                }
                continue
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }) { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings {
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else { continue }
                if Self.name(identifier) == "id" { declaresID = true }
            }
            guard let binding = variable.bindings.first,
                  let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else { continue }
            let name = Self.name(identifier)
            let reference = identifier.trimmed.text
            if Self.isComputed(binding) { continue }
            let transient = Self.attribute(named: "Transient", in: variable.attributes)
            let observationIgnored = variable.attributes.contains {
                let written = $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription
                return written == "ObservationIgnored" || written == "Observation.ObservationIgnored"
            }
            if transient == nil && observationIgnored {
                diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.observationIgnored(name: name)))
                continue
            }
            let attribute = Self.attribute(named: "Attribute", in: variable.attributes)
            let relationship = Self.attribute(named: "Relationship", in: variable.attributes)
            let isEphemeral = attribute.map { Self.options(of: $0).contains("ephemeral") } ?? false
            let type = binding.typeAnnotation?.type.trimmed
            let initializer = binding.initializer?.value.trimmed

            if variable.bindings.count > 1 {
                if transient == nil {
                    diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.severalBindings(
                        variable.bindings.compactMap { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text })))
                }
                continue
            }
            if transient != nil || isEphemeral {
                let optional = type.map(Self.isOptional) ?? false
                if initializer == nil && (!optional || isLet) {
                    diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.notStoredWithoutDefault(
                        name: name, attribute: transient != nil ? "@Transient" : "@Attribute(.ephemeral)", type: type?.description)))
                }
                if isEphemeral && transient == nil && !isLet {
                    ephemeral.append(Property(name: name, reference: reference, type: type, initializer: initializer, isLet: isLet,
                                              attribute: attribute, relationship: nil, isEphemeral: true, node: variable))
                }
                continue
            }
            if binding.accessorBlock != nil {
                diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.observers(name: name)))
                continue
            }
            if isLet && initializer != nil {
                diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.letWithInitialValue(name: name)))
                continue
            }
            if type == nil && initializer == nil { continue }
            if let attribute, let relationship {
                _ = attribute
                diagnostics.append(Diagnostic(node: relationship, message: ModelDiagnostic.attributeAndRelationship(name: name)))
            }
            persisted.append(Property(name: name, reference: reference, type: type, initializer: initializer, isLet: isLet,
                                      attribute: attribute, relationship: relationship, isEphemeral: false, node: variable))
        }

        let names = Set(persisted.map(\.name) + (declaresID ? [] : ["id"]))
        for node in constraintNodes {
            var groups: [[String]] = []
            for argument in node.arguments {
                guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                    diagnostics.append(Diagnostic(node: argument, message: ModelDiagnostic.constraintNotArray(macro: node.macroName.text)))
                    continue
                }
                var group: [String] = []
                for element in array.elements {
                    guard let keyPath = element.expression.as(KeyPathExprSyntax.self),
                          keyPath.components.count == 1,
                          let property = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self),
                          names.contains(Self.name(property.declName.baseName)) else {
                        diagnostics.append(Diagnostic(node: element.expression, message: ModelDiagnostic.unknownKeyPath(
                            macro: node.macroName.text, keyPath: element.expression.trimmedDescription, model: declaration.name.text,
                            persisted: (declaresID ? [] : ["id"]) + persisted.map(\.name))))
                        continue
                    }
                    group.append("\\\(declaration.name.text).\(property.declName.baseName.trimmed.text)")
                }
                groups.append(group)
            }
            if node.macroName.text == "Unique" { unique += groups } else { indexed += groups }
        }

        generatesID = !declaresID
        self.persisted = persisted
        self.ephemeral = ephemeral
        self.unique = unique
        self.indexed = indexed
        self.diagnostics = diagnostics
    }

    /// A declared name as the store spells it: without the backticks of `` `default` ``.
    static func name(_ identifier: TokenSyntax) -> String {
        let text = identifier.trimmed.text
        return text.count > 1 && text.hasPrefix("`") && text.hasSuffix("`") ? String(text.dropFirst().dropLast()) : text
    }

    /// The stored properties in an `#if` of the class body (nested ones included) that `@Model`
    /// would persist or observe: every one but `@Transient`, computed, `static`, `class` and
    /// `lazy` ones. The generated members are not conditional, so such a property is refused
    /// rather than silently left out of the store.
    static func storedVariables(in conditional: IfConfigDeclSyntax) -> [VariableDeclSyntax] {
        conditional.clauses.flatMap { clause -> [VariableDeclSyntax] in
            guard case .decls(let members)? = clause.elements else { return [] }
            return members.flatMap { member -> [VariableDeclSyntax] in
                if let nested = member.decl.as(IfConfigDeclSyntax.self) { return storedVariables(in: nested) }
                guard let variable = member.decl.as(VariableDeclSyntax.self),
                      !variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }),
                      attribute(named: "Transient", in: variable.attributes) == nil,
                      variable.bindings.contains(where: { !isComputed($0) }) else { return [] }
                return [variable]
            }
        }
    }

    /// Whether a binding is computed: a getter, or accessors other than observers and `init`.
    static func isComputed(_ binding: PatternBindingSyntax) -> Bool {
        guard let block = binding.accessorBlock else { return false }
        // Not a switch: the toolchain's SwiftSyntax is built for library evolution, the package's
        // is not, and an `@unknown default` warns on one of them.
        guard case .accessors(let accessors) = block.accessors else { return true }
        return accessors.contains { !["willSet", "didSet"].contains($0.accessorSpecifier.text) }
    }

    /// The attribute `@name` (or `@DataStores.name`) in a list, when there.
    static func attribute(named name: String, in attributes: AttributeListSyntax) -> AttributeSyntax? {
        for element in attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let type = attribute.attributeName.trimmedDescription
            if type == name || type == "DataStores." + name { return attribute }
        }
        return nil
    }

    /// The unlabeled arguments of `@Attribute(...)` / `@Relationship(...)`, by member name
    /// (`.ephemeral` -> "ephemeral", `.transformable(by: X.self)` -> "transformable").
    static func options(of attribute: AttributeSyntax) -> [String] {
        guard case .argumentList(let arguments)? = attribute.arguments else { return [] }
        return arguments.filter { $0.label == nil }.compactMap { argument in
            var expression = argument.expression
            if let call = expression.as(FunctionCallExprSyntax.self) { expression = call.calledExpression }
            return expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
        }
    }

    /// Whether a written type is optional.
    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional" { return true }
        if let member = type.as(MemberTypeSyntax.self), member.name.text == "Optional",
           member.baseType.trimmedDescription == "Swift" { return true }
        return false
    }
}
