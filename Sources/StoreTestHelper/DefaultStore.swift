import DataStores
import JSONStore
import StoreTestSupport

/// Saves one record per payload to the default store (`ModelContainer(for:)` with no
/// configuration), then prints "store PATH" (the JSON store's file) and "wrote N".
func defaultStoreWrite(author: String, payloads: [String]) throws {
    let container = try ModelContainer(for: HelperRecord.self)
    let context = ModelContext(container)
    for (item, payload) in payloads.enumerated() {
        context.insert(HelperRecord(batch: 0, item: item, author: author, payload: payload))
    }
    try context.save()
    if let store = container.stores.first as? JSONStore { print("store \(store.configuration.url.path)") }
    print("wrote \(payloads.count)")
}

/// Prints "record AUTHOR PAYLOAD" for each record of the default store, by author then payload.
func defaultStoreRead() throws {
    let context = ModelContext(try ModelContainer(for: HelperRecord.self))
    let records = try context.fetch(FetchDescriptor<HelperRecord>(sortBy: [SortDescriptor(\.author), SortDescriptor(\.payload)]))
    for record in records { print("record \(record.author) \(record.payload)") }
}
