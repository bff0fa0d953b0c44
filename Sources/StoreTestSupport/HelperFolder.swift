import DataStores

/// A folder of notes that the helper process and the tests change together: a to-many
/// relationship with an inverse, cascade-deleted, which two processes add members to.
@Model
public final class HelperFolder {
    public var id = UUID()
    public var name: String
    @Relationship(deleteRule: .cascade, inverse: \HelperNote.folder) public var notes: [HelperNote] = []

    public init(name: String) { self.name = name }
}

/// A note of a ``HelperFolder``.
@Model
public final class HelperNote {
    public var id = UUID()
    public var title: String
    public var folder: HelperFolder?

    public init(title: String) { self.title = title }
}
