/// The values a deleted model kept: those of its attributes marked preserved-on-deletion
/// (``SchemaMetadata/preservedOnDeletion``), and nothing else.
///
/// Read one by key path (`tombstone[\.name]`), or iterate over all of them.
public struct HistoryTombstone<Model: PersistentModel>: Sequence, Sendable, CustomStringConvertible {
    /// Attribute name -> preserved value.
    public let values: [String: SnapshotValue]

    public init(values: [String: SnapshotValue]) { self.values = values }

    /// The preserved value of an attribute, `nil` when it was not preserved or does not decode
    /// as `Value`.
    public subscript<Value: Decodable>(keyPath: KeyPath<Model, Value>) -> Value? {
        guard let name = ModelAttributes.of(Model.self).name(of: keyPath), let value = values[name] else { return nil }
        return try? SnapshotDecoder().decode(Value.self, from: value)
    }

    /// One preserved attribute: its key path and stored value.
    public struct Element: Sendable {
        public let keyPath: any PartialKeyPath<Model> & Sendable
        public let attributeName: String
        public let value: SnapshotValue
    }

    /// The preserved attributes in the order the model's metadata lists them.
    public func makeIterator() -> IndexingIterator<[Element]> {
        ModelAttributes.of(Model.self).attributes.compactMap { attribute -> Element? in
            guard let value = values[attribute.name] else { return nil }
            return Element(keyPath: attribute.keyPath, attributeName: attribute.name, value: value)
        }.makeIterator()
    }

    public var description: String {
        values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}
