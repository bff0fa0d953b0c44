import Foundation
import JSONStore
import StoreProtocol
import StoreTestSupport

final class Entry: PersistentModel, Codable {
    var id = UUID()
    var title: String
    var count: Int
    init(_ title: String, count: Int = 0) {
        self.title = title
        self.count = count
    }
    static let schemaMetadata = SchemaMetadata<Entry>(
        attributes: [\.id, \.title, \.count],
        preservedOnDeletion: [\.title])
}

func openContainer(_ url: URL, allowsSave: Bool = true, compactionThreshold: Int = 1 << 20) throws -> ModelContainer {
    try ModelContainer(for: Entry.self, configurations: JSONStoreConfiguration(
        url: url, allowsSave: allowsSave, compactionThreshold: compactionThreshold))
}

/// Saves one entry per title, one save each, as `author`.
func save(_ titles: [String], to container: ModelContainer, author: String? = nil) throws {
    let context = ModelContext(container)
    context.author = author
    for title in titles {
        context.insert(Entry(title))
        try context.save()
    }
}

func titles(_ container: ModelContainer) throws -> [String] {
    try ModelContext(container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.title)])).map(\.title)
}

func transactionCount(_ container: ModelContainer) throws -> Int {
    try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
}
