import DataStores

/// A save's unique constraints hold for the rows it leaves, not for each row as it is written: two
/// stored models that swap unique values in one save (or three that rotate them) are stored, as a
/// database stores them under a deferred constraint, checked at commit. A store that checks each
/// updated row against the others as they were refuses the swap, though no two rows ever share a
/// value once the save is done; a replicator that applies another device's save of a swap (made
/// there through a spare value, over two saves) would then be refused for ever.
enum UniqueSwapCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "upserts", name: "storedModelsSwapUniqueValuesInOneSave", requires: .updates) { target in
            let configuration = try target.makeConfiguration()
            let container = try target.open(configuration)
            let context = ModelContext(container)
            let members = ["a", "b", "c"].map { SuiteMember(name: $0, email: $0 + "@example.com") }
            for member in members { context.insert(member) }
            try context.save()
            // Opened before the swap: a second container of a persistent store reads it as
            // another process does (a JSON store replays its journal).
            let other = target.capabilities.contains(.persistence) ? try target.open(configuration) : nil
            if let other { _ = try emails(other) }

            members[0].email = "b@example.com"
            members[1].email = "a@example.com"
            try context.save()
            let swapped = ["a": "b@example.com", "b": "a@example.com", "c": "c@example.com"]
            try checkEqual(try emails(container), swapped, "emails after a swap in one save")

            members[0].email = "c@example.com"   // a rotation of three
            members[1].email = "b@example.com"
            members[2].email = "a@example.com"
            try context.save()
            let rotated = ["a": "c@example.com", "b": "b@example.com", "c": "a@example.com"]
            try checkEqual(try emails(container), rotated, "emails after a rotation in one save")
            if let other { try checkEqual(try emails(other), rotated, "emails, read by another container of the store") }
            if target.capabilities.contains(.persistence) {
                try checkEqual(try emails(try target.open(configuration)), rotated, "emails after reopening")
            }

            // The rows a save leaves are what is checked: one that leaves two holders of a value is
            // still refused, and changes nothing.
            members[0].email = "b@example.com"
            members[2].email = "c@example.com"
            try checkThrows(DataStoreError(.constraintViolation, ""), "a save that leaves two members with one email") {
                try context.save()
            }
            try checkEqual(try emails(container), rotated, "emails after the refused save")
        },
    ]

    /// Each member's email by name, read by a new context.
    private static func emails(_ container: ModelContainer) throws -> [String: String] {
        let members = try ModelContext(container).fetch(FetchDescriptor<SuiteMember>())
        return Dictionary(members.map { ($0.name, $0.email ?? "nil") }, uniquingKeysWith: { first, _ in first })
    }
}
