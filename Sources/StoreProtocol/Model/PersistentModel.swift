import Foundation

/// A type whose instances a ``ModelContext`` tracks and a ``DataStore`` persists.
///
/// Declare a model as a `final class` with `var` stored properties, a stable `id`, and
/// synthesized `Codable`, and list its attributes' key paths in ``schemaMetadata`` (what
/// SwiftData's `@Model` macro generates). Attributes are named by their coding keys, so keep the
/// synthesized `CodingKeys` (property names and coding keys must match).
///
/// ```swift
/// final class Trip: PersistentModel {
///     var id = UUID()
///     var name: String
///     static let schemaMetadata = SchemaMetadata<Trip>(attributes: [\.id, \.name], unique: [[\.name]])
/// }
/// ```
///
/// An `@Observable` model works the same. The macro turns each `var` into a computed property over
/// storage `_name`, so its `CodingKeys` name that storage and its metadata names each attribute
/// (``SchemaMetadata/NamedAttribute/attribute(_:_:)``) and relationship beside its key path;
/// ``ModelContainer`` checks that each name is a stored `_name` of the key path's type:
///
/// ```swift
/// @Observable final class Trip: PersistentModel {
///     var id = UUID()
///     var name = ""
///     enum CodingKeys: String, CodingKey {
///         case _id = "id", _name = "name"
///     }
///     static let schemaMetadata = SchemaMetadata<Trip>(
///         attributes: [.attribute("id", \.id), .attribute("name", \.name)], unique: [[\.name]])
/// }
/// ```
///
/// Models are Hashable by identity (`===`), like SwiftData's: two instances are equal only if
/// they are the same object.
public protocol PersistentModel: AnyObject, Codable, Hashable, Identifiable where ID: Codable & Sendable {
    /// The attributes, unique constraints, indices and attributes preserved on deletion, by key
    /// path.
    static var schemaMetadata: SchemaMetadata<Self> { get }
    /// The name stores use for this model's entity; the type name unless you override it.
    static var entityName: String { get }
}

extension PersistentModel {
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
    /// Sets this instance's attributes to `values`, keeping its identity: decodes a fresh
    /// instance and assigns each attribute through its key path.
    /// - Throws: `DecodingError` when the values do not decode as `Self`; nothing changes then.
    /// A new instance with the attributes in `values` and no related models: a snapshot holds
    /// relationships as keys, which only a context resolves to instances (``SnapshotDecoder``
    /// decodes them empty; ``ModelContext`` sets them after decoding).
    /// - Throws: what ``SnapshotDecoder`` throws.
    static func decodeDetached(_ values: [String: SnapshotValue]) throws -> Self {
        try SnapshotDecoder().decode(Self.self, fromAttributes: values)
    }

    func assignValues(_ values: [String: SnapshotValue]) throws {
        let fresh = try Self.decodeDetached(values)
        ModelAttributes.of(Self.self).copyValues(from: fresh, to: self)
    }
}

extension PersistentModel {
    /// The stored name of the attribute a key path names, `nil` when the key path is not one of
    /// ``schemaMetadata``'s attributes: for backends whose configuration names attributes by key
    /// path.
    /// - Complexity: O(1) after the first call for a model type.
    public static func attributeName(of keyPath: PartialKeyPath<Self>) -> String? {
        ModelAttributes.of(Self.self).name(of: keyPath)
    }
}
