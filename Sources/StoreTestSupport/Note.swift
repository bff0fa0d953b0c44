import Foundation
import StoreProtocol

/// The smallest model a test needs: an identifier and a text. For tests about containers,
/// contexts and history, where what the model holds does not matter.
public final class Note: PersistentModel, Codable {
    public var id = UUID()
    public var text: String

    public init(_ text: String = "") { self.text = text }

    public static let schemaMetadata = SchemaMetadata<Note>(attributes: [\.id, \.text])
}
