/// What a model says about an attribute for migration, in its ``SchemaMetadata/attributeOptions``:
/// the name it had in the store before (SwiftData's `@Attribute(originalName:)`), and the value
/// stored models get when the attribute is new (what SwiftData reads from the property's
/// initial value, which a library without macros cannot see).
///
/// ```swift
/// attributeOptions: [.originalName(\.details, "notes"), .defaultValue(\.rating, 3)]
/// ```
public struct AttributeOption<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked: the key path is immutable; the value is a SnapshotValue or a message.
    let keyPath: any PartialKeyPath<Model> & Sendable
    let kind: Kind

    enum Kind {
        case originalName(String)
        case defaultValue(SnapshotValue)
        /// A default the snapshot coder cannot store; the schema reports it as a problem.
        case unstorableDefault(String)
    }

    /// The attribute (or relationship) was stored under `name` before: a lightweight migration
    /// renames it, keeping its values and history.
    public static func originalName(_ keyPath: any PartialKeyPath<Model> & Sendable, _ name: String) -> Self {
        Self(keyPath: keyPath, kind: .originalName(name))
    }

    /// Stored models that have no value for this attribute get `value` when a lightweight
    /// migration adds it. Without one, a new attribute must be optional (stored models get `nil`)
    /// or be filled by a custom ``MigrationStage``.
    public static func defaultValue<Value: Encodable & Sendable>(_ keyPath: any KeyPath<Model, Value> & Sendable, _ value: Value) -> Self {
        do {
            return Self(keyPath: keyPath, kind: .defaultValue(try SnapshotEncoder().encode(value)))
        } catch {
            return Self(keyPath: keyPath, kind: .unstorableDefault("its default value \(value) cannot be stored: \(error)"))
        }
    }
}
