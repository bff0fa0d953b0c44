import Foundation
import StoreProtocol

/// A folder of notes that the helper process and the tests change together: a to-many
/// relationship with an inverse, cascade-deleted, which two processes add members to.
public final class HelperFolder: PersistentModel, Codable {
    public var id = UUID()
    public var name: String
    public var notes: [HelperNote] = []

    public init(name: String) { self.name = name }

    public static let schemaMetadata = SchemaMetadata<HelperFolder>(
        attributes: [\.id, \.name], relationships: [.relationship(\.notes, deleteRule: .cascade, inverse: \HelperNote.folder)])
}

/// A note of a ``HelperFolder``.
public final class HelperNote: PersistentModel, Codable {
    public var id = UUID()
    public var title: String
    public var folder: HelperFolder?

    public init(title: String) { self.title = title }

    public static let schemaMetadata = SchemaMetadata<HelperNote>(attributes: [\.id, \.title], relationships: [.relationship(\.folder)])
}
