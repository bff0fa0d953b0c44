import Foundation

/// A type whose instances a ``ModelContext`` tracks and a ``DataStore`` persists.
///
/// Declare a model as a `final class` with `var` stored properties, a stable `id`, and
/// synthesized `Codable`. Its attributes are its stored properties, named by their coding keys,
/// so keep the synthesized `CodingKeys` (property names and coding keys must match).
///
/// ```swift
/// final class Trip: PersistentModel {
///     var id = UUID()
///     var name: String
///     static let schemaMetadata = SchemaMetadata<Trip>(unique: [[\.name]])
/// }
/// ```
///
/// Models are Hashable by identity (`===`), like SwiftData's: two instances are equal only if
/// they are the same object.
public protocol PersistentModel: AnyObject, Codable, Hashable, Identifiable where ID: Codable & Sendable {
    /// Unique constraints, indices and attributes preserved on deletion, by key path.
    static var schemaMetadata: SchemaMetadata<Self> { get }
    /// The name stores use for this model's entity; the type name unless you override it.
    static var entityName: String { get }
}

extension PersistentModel {
    public static var schemaMetadata: SchemaMetadata<Self> { SchemaMetadata() }
    public static var entityName: String { TypeNames.name(of: Self.self) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The identifier of this model: its entity and its `id`.
    /// - Complexity: O(1) for `UUID`, `String` and integer ids; other ids are encoded.
    public var persistentModelID: PersistentIdentifier {
        PersistentIdentifier(entityName: Self.entityName, primaryKey: PersistentIdentifier.primaryKey(id))
    }
}

extension PersistentModel {
    /// Sets this instance's stored properties to `values`, keeping its identity: decodes a fresh
    /// instance and copies its fields over.
    /// - Throws: `DecodingError` when the values do not decode as `Self`; nothing changes then.
    func assignValues(_ values: [String: SnapshotValue], fields: ModelFields) throws {
        let fresh = try SnapshotDecoder().decode(Self.self, fromAttributes: values)
        fields.copyValues(from: fresh, to: self)
    }
}

extension PersistentModel {
    /// The attribute a key path names, `nil` when it is not one stored property: for backends
    /// whose configuration names attributes by key path.
    public static func attributeName(of keyPath: PartialKeyPath<Self>) -> String? {
        ModelFields.of(Self.self).name(of: keyPath)
    }
}
