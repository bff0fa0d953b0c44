import StoreProtocol

/// What the writers save: one model per save, named by writer and sequence.
final class HelperEntry: PersistentModel, Codable {
    var id: String
    var writer: Int
    var sequence: Int

    init(writer: Int, sequence: Int) {
        id = "w\(writer)-\(sequence)"
        self.writer = writer
        self.sequence = sequence
    }

    static let schemaMetadata = SchemaMetadata<HelperEntry>(
        attributes: [\.id, \.writer, \.sequence], indexed: [[\.writer]])
}
