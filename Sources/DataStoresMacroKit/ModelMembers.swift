import SwiftSyntax
import SwiftSyntaxBuilder

/// The members `@Model` adds to a class (MACRO-CONTRACT.md, "The expansion"): the backing data,
/// `id` when the class declares none, `schemaMetadata`, `storedValues()`,
/// `init(storedValues:)` and `assignStoredValues(_:)`. Each is a direct call per property to
/// `StoreProtocol.ModelCoding`, chosen by overload at compile time: no reflection at run time.
struct ModelMembers {
    let model: ModelDeclaration

    init(_ model: ModelDeclaration) { self.model = model }

    var declarations: [DeclSyntax] {
        var declarations: [DeclSyntax] = [
            "@Transient public let _$backingData = StoreProtocol.ModelBacking()",
            "public var persistentBackingData: StoreProtocol.ModelBacking { _$backingData }",
        ]
        if model.generatesID {
            declarations.append("public private(set) var id = Foundation.UUID()")
        }
        declarations += [schemaMetadata, storedValues, initFromStoredValues, assignStoredValues]
        return declarations
    }

    // MARK: - Metadata

    private var schemaMetadata: DeclSyntax {
        let type = model.typeName
        var entries: [String] = []
        if model.generatesID { entries.append(".attribute(\"id\", \\\(type).id)") }
        for property in model.persisted {
            entries.append(metadataEntry(property))
        }
        var arguments = ["properties: [\n" + entries.map { "        " + $0 + ",\n" }.joined() + "    ]"]
        func groups(_ groups: [[String]]) -> String {
            "[" + groups.map { "[" + $0.joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
        }
        if !model.unique.isEmpty { arguments.append("unique: " + groups(model.unique)) }
        if !model.indexed.isEmpty { arguments.append("indexed: " + groups(model.indexed)) }
        // Indented here: an interpolated multi-line string keeps its own indentation.
        let list = arguments.map { "    " + $0 }.joined(separator: ",\n")
        return "public static let schemaMetadata = StoreProtocol.SchemaMetadata<\(raw: type)>(\n\(raw: list))"
    }

    /// `.attribute("name", \Trip.name, options: [...], originalName: ..., defaultValue: ...)` or
    /// `.relationship("items", \Trip.items, deleteRule: ..., inverse: ...)`: the property's
    /// `@Attribute` / `@Relationship` arguments passed on, unlabeled options gathered into
    /// `options:`.
    private func metadataEntry(_ property: ModelDeclaration.Property) -> String {
        let head = "\"\(property.name)\", \\\(model.typeName).\(property.reference)"
        if let relationship = property.relationship {
            return ".relationship(" + ([head] + Self.arguments(of: relationship)).joined(separator: ", ") + ")"
        }
        var arguments = [head] + (property.attribute.map(Self.arguments(of:)) ?? [])
        if let initializer = property.initializer {
            // `.some(…)` types the initial value as the written type, `V`: `= .none` for an enum
            // with a case `none` is that case, where `defaultValue: .none` would be `V?.none`, no
            // default. Without a written type the initial value names its type itself.
            let typed = property.type != nil && !initializer.is(NilLiteralExprSyntax.self)
            arguments.append("defaultValue: " + (typed ? ".some(\(initializer.trimmedDescription))" : initializer.trimmedDescription))
        }
        return ".attribute(" + arguments.joined(separator: ", ") + ")"
    }

    /// An attribute's arguments as the metadata entry takes them: `options: [...]` first.
    static func arguments(of attribute: AttributeSyntax) -> [String] {
        guard case .argumentList(let list)? = attribute.arguments else { return [] }
        let options = list.filter { $0.label == nil }.map(\.expression.trimmedDescription)
        let labeled = list.filter { $0.label != nil }.map { "\($0.label!.text): \($0.expression.trimmedDescription)" }
        return (options.isEmpty ? [] : ["options: [" + options.joined(separator: ", ") + "]"]) + labeled
    }

    // MARK: - Store values
    // The dictionary is `_$values` in all three, so that a property named `values` is no clash.
    // It is made with its capacity (`Dictionary(minimumCapacity:)`): `reserveCapacity` on an
    // empty dictionary costs about 1,100 instructions more (callgrind), a quarter of an encode.

    /// The stored field a property's value lives in: `_name` behind the accessors, the property
    /// itself for a `let` and the generated `id`.
    private func storage(_ property: ModelDeclaration.Property) -> String {
        property.isLet ? property.reference : "_" + property.name
    }

    private var storedProperties: [(name: String, storage: String)] {
        (model.generatesID ? [("id", "id")] : []) + model.persisted.map { ($0.name, storage($0)) }
    }

    private var storedValues: DeclSyntax {
        let lines = storedProperties.map { "_$values[\"\($0.name)\"] = try StoreProtocol.ModelCoding.encode(\($0.storage))" }
        return """
            public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
                var _$values = [String: StoreProtocol.SnapshotValue](minimumCapacity: \(raw: storedProperties.count))
                \(raw: lines.joined(separator: "\n"))
                return _$values
            }
            """
    }

    /// The most stored properties whose names the generated decoder tells apart with a `switch`:
    /// a `switch` compares a name with the cases in turn, so past about 16 names hashing each
    /// one (about 350 instructions) costs less than comparing it with half the others.
    static let maximumSwitchedProperties = 16

    private func decode(_ name: String) -> String {
        "try StoreProtocol.ModelCoding.decode(_$values[\"\(name)\"], attribute: \"\(name)\", of: \"\(model.typeName)\")"
    }

    /// The stored values are read in one pass over the dictionary, each name told apart by a
    /// `switch` (comparing two short strings is a few instructions), then decoded in the order
    /// the properties are declared. A lookup by name hashed each name: about 350 instructions an
    /// attribute, 2,100 of the 5,200 a decode of a six-attribute model cost (callgrind). An
    /// absent name leaves its value `nil`, as the lookup did; names of no property are skipped,
    /// as before. Beyond ``maximumSwitchedProperties`` a name would be compared with too many
    /// others, and each value is looked up by name.
    private var initFromStoredValues: DeclSyntax {
        let properties = storedProperties
        guard !properties.isEmpty, properties.count <= Self.maximumSwitchedProperties else {
            let lines = properties.map { "\($0.storage) = \(decode($0.name))" }
            return """
                public required init(storedValues _$values: [String: StoreProtocol.SnapshotValue]) throws {
                    \(raw: lines.joined(separator: "\n"))
                }
                """
        }
        func local(_ name: String) -> String { "_$stored_" + name }
        let declarations = properties.map { "var \(local($0.name)): StoreProtocol.SnapshotValue? = nil" }
        let cases = properties.map { "case \"\($0.name)\": \(local($0.name)) = _$value" }
        let lines = properties.map {
            "\($0.storage) = try StoreProtocol.ModelCoding.decode(\(local($0.name)), attribute: \"\($0.name)\", of: \"\(model.typeName)\")"
        }
        return """
            public required init(storedValues _$values: [String: StoreProtocol.SnapshotValue]) throws {
                \(raw: declarations.joined(separator: "\n"))
                for (_$key, _$value) in _$values {
                    switch _$key {
                    \(raw: cases.joined(separator: "\n"))
                    default: break
                    }
                }
                \(raw: lines.joined(separator: "\n"))
            }
            """
    }

    /// Every attribute decoded first (a value that does not decode changes nothing), then set
    /// through its accessor so that observers see it. Relationships are the context's: a property
    /// marked `@Relationship` is skipped, and one whose type may be a model (`var lodging:
    /// Lodging?`) is set only when an overload says it is not a model, an optional model or an
    /// array of models. `let` properties cannot change.
    private var assignStoredValues: DeclSyntax {
        var decoding: [String] = []
        var setting: [String] = []
        var mayBeRelationship = false
        if model.generatesID {
            decoding.append("let id: Foundation.UUID = \(decode("id"))")
            setting.append("self.id = id")
        }
        for property in model.persisted where !property.isLet && property.relationship == nil {
            if let type = property.type {
                decoding.append("let \(property.reference): \(type.trimmedDescription) = \(decode(property.name))")
            } else {
                // The type comes from the initializer: a copy of the stored value lends it.
                decoding.append("var \(property.reference) = _\(property.name)")
                decoding.append("\(property.reference) = \(decode(property.name))")
            }
            if property.type.map(KnownAttributeTypes.isAttribute) ?? false {
                setting.append("self.\(property.reference) = \(property.reference)")
            } else {
                mayBeRelationship = true
                setting.append("if !_$isRelationship(\(property.reference)) { self.\(property.reference) = \(property.reference) }")
            }
        }
        let helpers = mayBeRelationship ? """
            func _$isRelationship<V>(_: V) -> Bool { false }
            func _$isRelationship<D: StoreProtocol.PersistentModel>(_: D?) -> Bool { true }
            func _$isRelationship<D: StoreProtocol.PersistentModel>(_: [D]) -> Bool { true }

            """ : ""
        let body = decoding.isEmpty && setting.isEmpty ? "_ = _$values" : helpers + (decoding + setting).joined(separator: "\n")
        return """
            public func assignStoredValues(_ _$values: [String: StoreProtocol.SnapshotValue]) throws {
                \(raw: body)
            }
            """
    }
}

/// The types a store keeps as attribute values that are never models, written as Swift spells
/// them: a property of one of these (optional, array, dictionary of them) is an attribute.
enum KnownAttributeTypes {
    static let names: Set<String> = [
        "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Bool", "String", "Date", "Data", "UUID", "URL", "Decimal",
    ]

    static func isAttribute(_ type: TypeSyntax) -> Bool {
        if let optional = type.as(OptionalTypeSyntax.self) { return isAttribute(optional.wrappedType) }
        if let array = type.as(ArrayTypeSyntax.self) { return isAttribute(array.element) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) { return isAttribute(dictionary.key) && isAttribute(dictionary.value) }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            // Through the text: the argument's node type differs between swift-syntax releases.
            let arguments = identifier.genericArgumentClause?.arguments.map { TypeSyntax("\(raw: $0.argument.trimmedDescription)") } ?? []
            if ["Optional", "Array", "Set"].contains(identifier.name.text) || identifier.name.text == "Dictionary" {
                return !arguments.isEmpty && arguments.allSatisfy(isAttribute)
            }
            return arguments.isEmpty && names.contains(identifier.name.text)
        }
        if let member = type.as(MemberTypeSyntax.self), ["Swift", "Foundation"].contains(member.baseType.trimmedDescription) {
            return names.contains(member.name.text)
        }
        return false
    }
}
