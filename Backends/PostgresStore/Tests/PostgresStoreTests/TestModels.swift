import Foundation
import StoreProtocol

/// A model of the error tests.
final class PGNote: PersistentModel, Codable {
    var id = UUID()
    var title: String
    var rank: Int

    init(title: String, rank: Int) {
        self.title = title
        self.rank = rank
    }

    static let schemaMetadata = SchemaMetadata<PGNote>(attributes: [\.id, \.title, \.rank], indexed: [[\.rank]])
}
