/// The values a deleted model kept: those of its attributes marked preserved-on-deletion
/// (``SchemaMetadata/preservedOnDeletion``), and nothing else.
///
/// Read one by key path (`tombstone[\.name]`), or iterate over all of them.
public struct HistoryTombstone<Model: PersistentModel>: Sequence, Sendable, CustomStringConvertible {
    /// Attribute name -> preserved value.
    public let values: [String: SnapshotValue]

    /// Makes a tombstone from preserved values by attribute name, as a store recorded them.
    public init(values: [String: SnapshotValue]) { self.values = values }

    /// The preserved value of an attribute, `nil` when it was not preserved or does not decode
    /// as `Value`.
    public subscript<Value: Decodable>(keyPath: KeyPath<Model, Value>) -> Value? {
        guard let name = ModelAttributes.of(Model.self).name(of: keyPath), let value = values[name] else { return nil }
        return try? SnapshotDecoder().decode(Value.self, from: value)
    }

    /// The identifiers a preserved relationship held (`tombstone.identifiers(\.trip)`), in
    /// order; empty when it was not preserved or held none.
    public func identifiers<Value>(_ keyPath: KeyPath<Model, Value>) -> [PersistentIdentifier] {
        let attributes = ModelAttributes.of(Model.self)
        guard let name = attributes.relationshipName(of: keyPath),
              let relationship = attributes.relationships.first(where: { $0.name == name }) else { return [] }
        let destination = Schema.Relationship(name: name, destination: relationship.metadata.destination.entityName,
                                              isToMany: relationship.metadata.isToMany, deleteRule: relationship.metadata.deleteRule)
        return destination.identifiers(in: values)
    }

    /// One preserved attribute: its key path and stored value.
    public struct Element: Sendable {
        /// The attribute's or relationship's key path, `==` to the key path literal.
        public let keyPath: any PartialKeyPath<Model> & Sendable
        /// The name it is stored under (its coding key).
        public let attributeName: String
        /// The value as stored: an attribute's value, or a relationship's primary keys.
        public let value: SnapshotValue
    }

    /// The preserved attributes, then relationships (as primary keys), in the order the model's
    /// metadata lists them.
    public func makeIterator() -> IndexingIterator<[Element]> {
        let attributes = ModelAttributes.of(Model.self)
        let named = attributes.attributes.map { ($0.name, $0.keyPath) } + attributes.relationships.map { ($0.name, $0.metadata.keyPath) }
        return named.compactMap { name, keyPath -> Element? in
            guard let value = values[name] else { return nil }
            return Element(keyPath: keyPath, attributeName: name, value: value)
        }.makeIterator()
    }

    public var description: String {
        values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}
