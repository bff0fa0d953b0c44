import Foundation
import JSONStore
import DataStores
import StoreTestSupport

@Model final class Entry {
    var id = UUID()
    @Attribute(.preserveValueOnDeletion) var title: String
    var count: Int
    init(_ title: String, count: Int = 0) {
        self.title = title
        self.count = count
    }
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
