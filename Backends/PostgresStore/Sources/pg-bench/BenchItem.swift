import DataStores

/// The benchmarks' model: `category` is indexed (1% of rows each), `value` is not (0..<10,000).
@Model final class BenchItem {
    #Index<BenchItem>([\.category])
    var id = UUID()
    var name: String
    var category: Int
    var value: Int

    init(name: String, category: Int, value: Int) {
        self.name = name
        self.category = category
        self.value = value
    }

    /// The model as a store's snapshot.
    var snapshot: DefaultSnapshot {
        let key = persistentModelID
        return DefaultSnapshot(persistentIdentifier: key, values: [
            "id": key.primaryKey, "name": .string(name), "category": .int(Int64(category)), "value": .int(Int64(value)),
        ])
    }
}
