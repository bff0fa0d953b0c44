import Foundation
import StoreProtocol

/// Saves of one to-many relationship from several contexts (issue 28, finding A after the lost
/// update): a save sends the members its context added and removed, and the store applies them
/// to the members it holds, so that adding or moving different members of one relationship in
/// two contexts keeps both changes, and the two sides of the relationship agree.
enum ToManyMergeCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "merging", name: "twoContextsAddingMembersToOneRelationshipKeepBoth", requires: .updates) { target in
            let container = try target.makeContainer()
            let later = try addOneItemEach(from: container, container)
            try checkEqual(try bucketLists(container), ["Iceland: fromA fromB"], "the voyage's items after both saves")
            try checkEqual(try itemVoyages(container), ["fromA Iceland", "fromB Iceland"], "each item's voyage")
            // The later context's own instance takes the merged members when it fetches again.
            try checkEqual(try voyage("Iceland", in: later).bucketList.map(\.title), ["fromA", "fromB"],
                           "the voyage's items as the later context fetches it again")
        },
        ConformanceCase(area: "merging", name: "twoStoresOnOneConfigurationAddingMembersToOneRelationshipKeepBoth",
                        requires: [.updates, .persistence]) { target in
            // Two containers on one configuration: the store's own instances, as two processes have.
            let configuration = try target.makeConfiguration()
            let first = try target.open(configuration), second = try target.open(configuration)
            try addOneItemEach(from: first, second)
            for container in [first, second] {
                try checkEqual(try bucketLists(container), ["Iceland: fromA fromB"], "the voyage's items after both saves")
                try checkEqual(try itemVoyages(container), ["fromA Iceland", "fromB Iceland"], "each item's voyage")
            }
        },
        ConformanceCase(area: "merging", name: "twoContextsMovingDifferentMembersOutKeepBoth", requires: .updates) { target in
            let container = try target.makeContainer()
            let seed = ModelContext(container)
            let iceland = SuiteVoyage(name: "Iceland")
            for voyage in [iceland, SuiteVoyage(name: "Chile"), SuiteVoyage(name: "Peru")] { seed.insert(voyage) }
            for title in ["one", "two", "three"] {
                let item = SuiteBucketItem(title: title)
                seed.insert(item)
                item.voyage = iceland
            }
            try seed.save()
            let a = ModelContext(container), b = ModelContext(container)
            try item("one", in: a).voyage = try voyage("Chile", in: a)
            try item("two", in: b).voyage = try voyage("Peru", in: b)
            try a.save()
            try b.save()
            try checkEqual(try bucketLists(container), ["Chile: one", "Iceland: three", "Peru: two"], "each voyage's items")
            try checkEqual(try itemVoyages(container), ["one Chile", "three Iceland", "two Peru"], "each item's voyage")
            // The cascade follows the stored members: deleting Iceland deletes only its own item.
            let deleting = ModelContext(container)
            deleting.delete(try voyage("Iceland", in: deleting))
            try deleting.save()
            try checkEqual(try itemVoyages(container), ["one Chile", "two Peru"], "the items after Iceland was deleted")
        },
        ConformanceCase(area: "merging", name: "aStoreRefusesMemberChangesOfWhatIsNotAChangedToManyRelationship",
                        requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let iceland = SuiteVoyage(name: "Iceland")
            context.insert(iceland)
            try context.save()
            let store = try require(container.stores.first, "the store")
            let id = iceland.persistentModelID
            var values = try iceland.storedValues()
            values["name"] = .string("Chile")
            let change = ToManyChange(added: [.uuid(UUID())])
            for (names, changes) in [(["name"], ["name": change]), (["name"], ["bucketList": change])] as [(Set<String>, [String: ToManyChange])] {
                try checkThrows(DataStoreError(.invalidSchema, ""), "member changes of \(changes.keys.sorted()) naming \(names.sorted())") {
                    func run<S: DataStore>(_ store: S) throws {
                        _ = try store.save(DataStoreSaveChangesRequest(
                            editingState: EditingState(author: "suite"),
                            updated: [S.Snapshot(persistentIdentifier: id, values: values)],
                            updatedAttributes: [id: names], toManyChanges: [id: changes]))
                    }
                    try run(store)
                }
            }
            try checkEqual(try bucketLists(container), ["Iceland: "], "the voyage after the refused saves")
        },
    ]

    /// Saves a voyage "Iceland" through `first`; then a context of `first` and one of `second`
    /// each insert an item ("fromA", "fromB") into their instance of it, and save in that order.
    /// Returns the context that saved later.
    @discardableResult
    private static func addOneItemEach(from first: ModelContainer, _ second: ModelContainer) throws -> ModelContext {
        let seed = ModelContext(first)
        seed.insert(SuiteVoyage(name: "Iceland"))
        try seed.save()
        let a = ModelContext(first), b = ModelContext(second)
        for (context, title) in [(a, "fromA"), (b, "fromB")] {
            let item = SuiteBucketItem(title: title)
            context.insert(item)
            item.voyage = try voyage("Iceland", in: context)
        }
        try a.save()
        try b.save()
        return b
    }

    private static func voyage(_ name: String, in context: ModelContext) throws -> SuiteVoyage {
        try require(try context.fetch(FetchDescriptor<SuiteVoyage>(predicate: #Predicate { $0.name == name })).first, "the voyage \(name)")
    }

    private static func item(_ title: String, in context: ModelContext) throws -> SuiteBucketItem {
        try require(try context.fetch(FetchDescriptor<SuiteBucketItem>(predicate: #Predicate { $0.title == title })).first, "the item \(title)")
    }

    /// Each stored voyage with its items' titles in their stored order, read by a new context, by name.
    private static func bucketLists(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>()).map {
            "\($0.name): " + $0.bucketList.map(\.title).joined(separator: " ")
        }.sorted()
    }

    /// Each stored item's title and its voyage's name, read by a new context, by title.
    private static func itemVoyages(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<SuiteBucketItem>()).map { "\($0.title) \($0.voyage?.name ?? "nil")" }.sorted()
    }
}
