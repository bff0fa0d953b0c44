extension Schema {
    /// One relationship of an entity, as a store sees it: a snapshot holds it under ``name`` as
    /// primary keys of ``destination``. A store keeps the value as
    /// it keeps any attribute; a SQL backend may keep a to-one as a foreign key column.
    public struct Relationship: Sendable, Hashable, CustomStringConvertible {
        /// The property name, under which snapshots hold the related primary keys.
        public let name: String
        /// The entity name of the related models.
        public let destination: String
        /// Whether the value is an array of keys (`[BucketListItem]`) rather than one key or
        /// none (`LivingAccommodation?`).
        public let isToMany: Bool
        /// What deleting a model of this entity does to the related models; the context applies it at
        /// save, so the store receives its outcome as ordinary changes.
        public let deleteRule: DeleteRule
        /// The destination's relationship that names this entity back, when there is one.
        public internal(set) var inverse: String?
        /// The fewest related models a save accepts (SwiftData's `minimumModelCount`); `nil` for
        /// no bound. The context enforces it at save.
        public let minimumModelCount: Int?
        /// The most related models a save accepts (SwiftData's `maximumModelCount`); `nil` for no
        /// bound. The context enforces it at save.
        public let maximumModelCount: Int?

        init(name: String, destination: String, isToMany: Bool, deleteRule: DeleteRule, inverse: String? = nil,
             minimumModelCount: Int? = nil, maximumModelCount: Int? = nil) {
            self.name = name
            self.destination = destination
            self.isToMany = isToMany
            self.deleteRule = deleteRule
            self.inverse = inverse
            // 0 is SwiftData's "no bound".
            self.minimumModelCount = minimumModelCount.flatMap { $0 > 0 ? $0 : nil }
            self.maximumModelCount = maximumModelCount.flatMap { $0 > 0 ? $0 : nil }
        }

        /// The identifiers a snapshot's value of this relationship names, in order.
        /// - Complexity: O(*n*) in the number of related models.
        public func identifiers(in values: [String: SnapshotValue]) -> [PersistentIdentifier] {
            switch values[name] {
            case nil, .null?: return []
            case .array(let keys)?: return keys.map { PersistentIdentifier(entityName: destination, primaryKey: $0) }
            case let key?: return [PersistentIdentifier(entityName: destination, primaryKey: key)]
            }
        }

        /// Calls `body` with each identifier a snapshot's value of this relationship names, in
        /// order, as ``identifiers(in:)`` lists them, without making the list (for loops over
        /// many rows, such as loading a fetch's relationships).
        /// - Complexity: O(*n*) in the number of related models.
        @inlinable
        public func forEachIdentifier(in values: [String: SnapshotValue], _ body: (PersistentIdentifier) throws -> Void) rethrows {
            switch values[name] {
            case nil, .null?: return
            case .array(let keys)?: for key in keys { try body(PersistentIdentifier(entityName: destination, primaryKey: key)) }
            case let key?: try body(PersistentIdentifier(entityName: destination, primaryKey: key))
            }
        }

        public var description: String {
            "\(name) -> \(isToMany ? "[\(destination)]" : "\(destination)?")" + (inverse.map { " (inverse \($0))" } ?? "")
        }
    }
}
