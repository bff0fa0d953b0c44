import SwiftDiagnostics

/// The errors the model macros report, each naming the declaration and what to do.
enum ModelDiagnostic: DiagnosticMessage {
    case notAClass(kind: String)
    case subclassOfModel(name: String)
    case unknownKeyPath(macro: String, keyPath: String, model: String, persisted: [String])
    case constraintNotArray(macro: String)
    case notStoredWithoutDefault(name: String, attribute: String, type: String?)
    case letWithInitialValue(name: String)
    case observers(name: String)
    case severalBindings([String])
    case attributeAndRelationship(name: String)
    case constraintOutsideModel(macro: String)
    case conditionallyCompiled(names: [String])
    case observationIgnored(name: String)

    var message: String {
        switch self {
        case .notAClass(let kind):
            return "@Model applies to a class, not to \(kind); declare the model as a class ('@Model final class …')"
        case .subclassOfModel(let name):
            return "@Model class '\(name)' inherits from another model class, which a model cannot do "
                + "(a model's stored values and schema belong to one class); make '\(name)' a model of its own "
                + "that holds the shared properties, or relate the two with @Relationship"
        case let .unknownKeyPath(macro, keyPath, model, persisted):
            return "#\(macro) key path '\(keyPath)' names no persisted property of '\(model)'; "
                + "name one of its stored properties directly (\(persisted.joined(separator: ", ")))"
        case .constraintNotArray(let macro):
            return "#\(macro) takes arrays of key paths, one array per constraint: #\(macro)<Model>([\\.a, \\.b], [\\.c])"
        case let .notStoredWithoutDefault(name, attribute, type):
            let optional = type.map { "make it optional ('\($0)?')" } ?? "make it optional"
            return "\(attribute) property '\(name)' needs an initial value: a model read from the store does not run "
                + "your initializer and sets only stored properties; give '\(name)' a default value or \(optional)"
        case .letWithInitialValue(let name):
            return "'let \(name)' has an initial value, so a model read from the store could not take the stored one; "
                + "declare it 'var \(name)', or drop the initial value and set it in init, or mark it @Transient"
        case .observers(let name):
            return "stored property '\(name)' of a model cannot have willSet/didSet observers (@Model gives it accessors); "
                + "use withObservationTracking, or mark it @Transient"
        case .severalBindings(let names):
            return "declare the model's stored properties one per 'var' (\(names.joined(separator: ", "))): "
                + "@Model gives each its own accessors"
        case .attributeAndRelationship(let name):
            return "'\(name)' has both @Attribute and @Relationship; keep @Relationship for a property that holds models, "
                + "@Attribute for any other"
        case .constraintOutsideModel(let macro):
            return "#\(macro) belongs inside the body of an @Model class"
        case .conditionallyCompiled(let names):
            let list = names.map { "'\($0)'" }.joined(separator: ", ")
            let (property, isInside, it) = names.count == 1 ? ("property", "is inside", "it") : ("properties", "are inside", "them")
            return "stored \(property) \(list) of a model \(isInside) '#if', which @Model cannot persist (the schema and the "
                + "stored values it generates are the same in every build); move \(it) out of the '#if', or mark \(it) @Transient"
        case .observationIgnored(let name):
            return "'@ObservationIgnored var \(name)' in a model: @Model persists and observes every stored property "
                + "it does not skip; mark '\(name)' @Transient to keep it out of the store (not stored, not observed, and "
                + "its initial value in a model read from the store), or drop @ObservationIgnored to persist it"
        }
    }

    var diagnosticID: MessageID {
        let id: String = switch self {
        case .notAClass: "notAClass"
        case .subclassOfModel: "subclassOfModel"
        case .unknownKeyPath: "unknownKeyPath"
        case .constraintNotArray: "constraintNotArray"
        case .notStoredWithoutDefault: "notStoredWithoutDefault"
        case .letWithInitialValue: "letWithInitialValue"
        case .observers: "observers"
        case .severalBindings: "severalBindings"
        case .attributeAndRelationship: "attributeAndRelationship"
        case .constraintOutsideModel: "constraintOutsideModel"
        case .conditionallyCompiled: "conditionallyCompiled"
        case .observationIgnored: "observationIgnored"
        }
        return MessageID(domain: "DataStoresMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
