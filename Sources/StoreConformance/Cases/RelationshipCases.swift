import Foundation
import StoreProtocol

/// Relationships: to-one and to-many references stored as keys and loaded as the context's own
/// instances, inverses kept in step from either side, each delete rule, relationship changes in
/// history, tombstones that keep a relationship, and a reopen.
enum RelationshipCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "relationships", name: "relatedModelsAreSavedWithTheirOwnerAndLoadAsTheSameInstances") { target in
            let container = try target.makeContainer()
            let saved = try saveVoyage("Iceland", items: ["Geysir", "Glacier", "Lagoon"], place: "Hotel Borg", into: container)
            let context = ModelContext(container)
            let voyage = try require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first, "the voyage")
            try checkEqual(voyage.bucketList.map(\.title), ["Geysir", "Glacier", "Lagoon"], "the bucket list, in its order")
            try checkEqual(voyage.bucketList.map(\.id), saved.bucketList.map(\.id), "the bucket list's ids")
            try check(voyage.bucketList.allSatisfy { $0.voyage === voyage }, "each item's inverse is the fetched voyage itself")
            try checkEqual(voyage.livingAccommodation?.place, "Hotel Borg", "the accommodation")
            try check(voyage.livingAccommodation?.voyage === voyage, "the accommodation's inverse is the voyage itself")
            let items = try context.fetch(FetchDescriptor<SuiteBucketItem>())
            try check(items.count == 3 && items.allSatisfy { item in voyage.bucketList.contains { $0 === item } },
                      "fetching the items gives the instances the voyage holds")
            try check(!context.hasChanges, "loading relationships leaves the context unchanged")
            // The inverse was set at save although only the voyage's side was written.
            let other = ModelContext(container)
            let item = try require(try other.fetch(FetchDescriptor<SuiteBucketItem>()).first, "an item in a fresh context")
            try checkEqual(item.voyage?.id, saved.id, "an item fetched on its own loads its voyage")
        },
        ConformanceCase(area: "relationships", name: "aBatchDeleteByARelationshipDeletesWhatItSelects", requires: .updates) { target in
            // A store holds a relationship as identifiers: a predicate that reads one is decided
            // on models (an adversary's "delete the orphans" deleted every item).
            let container = try target.makeContainer()
            _ = try saveVoyage("Iceland", items: ["Geysir", "Glacier"], place: "Hotel Borg", into: container)
            _ = try saveVoyage("Peru", items: ["Machu Picchu"], place: "Inn", into: container)
            let setup = ModelContext(container)
            setup.insert(SuiteBucketItem(title: "orphan"))
            try setup.save()
            func titles() throws -> [String] {
                try ModelContext(container).fetch(FetchDescriptor<SuiteBucketItem>()).map(\.title).sorted()
            }
            try ModelContext(container).delete(model: SuiteBucketItem.self, where: #Predicate { $0.voyage == nil })
            try checkEqual(try titles(), ["Geysir", "Glacier", "Machu Picchu"], "items after deleting those in no voyage")
            try ModelContext(container).delete(model: SuiteBucketItem.self, where: #Predicate { $0.voyage?.name == "Iceland" })
            try checkEqual(try titles(), ["Machu Picchu"], "items after deleting Iceland's")
            let voyages = try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>(sortBy: [SortDescriptor(\.name)]))
            try checkEqual(voyages.map(\.name), ["Iceland", "Peru"], "the voyages, which no delete selected")
            try checkEqual(voyages.map { $0.bucketList.map(\.title) }, [[], ["Machu Picchu"]], "the voyages' bucket lists")
        },
        ConformanceCase(area: "relationships", name: "inversesFollowWhicheverSideChanged", requires: .updates) { target in
            let container = try target.makeContainer()
            let first = try saveVoyage("A", items: ["a1", "a2"], place: "Inn A", into: container)
            let second = try saveVoyage("B", items: ["b1"], place: "Inn B", into: container)
            var context = ModelContext(container)
            var (a, b) = try voyages(first, second, in: context)
            // The to-one side: an item moves to B.
            let moved = try require(a.bucketList.first { $0.title == "a2" }, "a2")
            moved.voyage = b
            try context.save()
            context = ModelContext(container)
            (a, b) = try voyages(first, second, in: context)
            try checkEqual(a.bucketList.map(\.title), ["a1"], "A's items after a2 moved to B by its own side")
            try checkEqual(b.bucketList.map(\.title), ["b1", "a2"], "B's items after a2 moved")
            // The to-many side: B appends a1.
            let a1 = try require(a.bucketList.first, "a1")
            b.bucketList.append(a1)
            try context.save()
            context = ModelContext(container)
            (a, b) = try voyages(first, second, in: context)
            try checkEqual(a.bucketList.map(\.title), [], "A's items after B took a1")
            try checkEqual(Set(b.bucketList.map(\.title)), ["b1", "a2", "a1"], "B's items after taking a1")
            try check(b.bucketList.allSatisfy { $0.voyage === b }, "every item B holds names B")
            // A to-one with a to-one inverse: B takes A's accommodation. The accommodations are
            // fetched first, so that the context meets them before the voyages.
            context = ModelContext(container)
            _ = try context.fetch(FetchDescriptor<SuiteAccommodation>())
            (a, b) = try voyages(first, second, in: context)
            b.livingAccommodation = a.livingAccommodation
            try context.save()
            context = ModelContext(container)
            (a, b) = try voyages(first, second, in: context)
            try checkEqual(a.livingAccommodation?.place, nil, "A's accommodation after B took it")
            try checkEqual(b.livingAccommodation?.place, "Inn A", "B's accommodation")
            try checkEqual(b.livingAccommodation?.voyage?.id, second.id, "the accommodation names B")
            let innB = try context.fetch(FetchDescriptor<SuiteAccommodation>()).first { $0.place == "Inn B" }
            try checkEqual(innB.map { $0.voyage == nil }, true, "B's former accommodation names no voyage")
        },
        ConformanceCase(area: "relationships", name: "aCascadeDeletesTheBucketListAndNullifiesTheAccommodationInOneTransaction",
                        requires: .updates) { target in
            let container = try target.makeContainer()
            let saved = try saveVoyage("Iceland", items: ["Geysir", "Glacier"], place: "Hotel Borg", into: container)
            try saveVoyage("Chile", items: ["Andes"], place: "Casa", into: container)
            let before = target.capabilities.contains(.history) ? try history(container).count : 0
            let context = ModelContext(container)
            let voyage = try require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first { $0.id == saved.id }, "Iceland")
            context.delete(voyage)
            try context.save()
            let fresh = ModelContext(container)
            try checkEqual(try fresh.fetch(FetchDescriptor<SuiteVoyage>()).map(\.name), ["Chile"], "voyages after the delete")
            try checkEqual(try fresh.fetch(FetchDescriptor<SuiteBucketItem>()).map(\.title), ["Andes"], "items: Iceland's cascaded")
            let places = try fresh.fetch(FetchDescriptor<SuiteAccommodation>(sortBy: [SortDescriptor(\.place)]))
            try checkEqual(places.map(\.place), ["Casa", "Hotel Borg"], "accommodations: nullify keeps them")
            try checkEqual(places.map { $0.voyage?.name ?? "none" }, ["Chile", "none"], "the nullified accommodation names no voyage")
            guard target.capabilities.contains(.history) else { return }
            let transactions = try history(container)
            try checkEqual(transactions.count, before + 1, "transactions: the delete and its cascade are one")
            try checkEqual(kinds(transactions[transactions.count - 1]).sorted(),
                           ["delete SuiteBucketItem", "delete SuiteBucketItem", "delete SuiteVoyage", "update SuiteAccommodation"],
                           "the transaction's changes")
            let typed = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last
            var tombstoneVoyages: [PersistentIdentifier] = []
            var tombstoneTitles: [String] = []
            for change in typed?.changes ?? [] {
                guard case .delete(let deletion) = change, let item = deletion as? DefaultHistoryDelete<SuiteBucketItem> else { continue }
                tombstoneVoyages += item.tombstone.identifiers(\.voyage)
                tombstoneTitles.append(item.tombstone[\.title] ?? "?")
            }
            try checkEqual(tombstoneTitles.sorted(), ["Geysir", "Glacier"], "the items' tombstones keep their titles")
            try checkEqual(tombstoneVoyages, [saved.persistentModelID, saved.persistentModelID],
                           "the items' tombstones keep the voyage they belonged to")
        },
        ConformanceCase(area: "relationships", name: "aDeniedDeleteThrowsAndChangesNothing", requires: .updates) { target in
            let container = try target.makeContainer()
            let context = ModelContext(container)
            let voyage = SuiteVoyage(name: "Guided")
            voyage.guide = SuiteGuide(name: "Ada")
            voyage.bucketList = [SuiteBucketItem(title: "Summit")]
            context.insert(voyage)
            try context.save()
            let before = target.capabilities.contains(.history) ? try history(container).count : 0
            context.delete(voyage)
            try checkThrows(ModelContextError(.deleteDenied, ""), "deleting a voyage whose guide rule is deny") { try context.save() }
            let fresh = ModelContext(container)
            try checkEqual(try fresh.fetch(FetchDescriptor<SuiteVoyage>()).map(\.name), ["Guided"], "voyages after the denied delete")
            try checkEqual(try fresh.fetch(FetchDescriptor<SuiteBucketItem>()).map(\.title), ["Summit"], "items: no cascade ran")
            if target.capabilities.contains(.history) {
                try checkEqual(try history(container).count, before, "transactions after the denied delete")
            }
            // Removing the guide first lets the delete through.
            context.rollback()
            voyage.guide = nil
            context.delete(voyage)
            try context.save()
            try checkEqual(try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>()).count, 0, "voyages once the guide is gone")
            try checkEqual(try ModelContext(container).fetch(FetchDescriptor<SuiteGuide>()).map(\.name), ["Ada"], "the guide stays")
        },
        ConformanceCase(area: "relationships", name: "noActionLeavesAReferenceThatLoadsAsDropped", requires: .updates) { target in
            let container = try target.makeContainer()
            let (context, voyage) = try saveTaggedVoyage(into: container)
            context.delete(voyage.tags[0])
            try context.save()
            let fresh = ModelContext(container)
            let loaded = try require(try fresh.fetch(FetchDescriptor<SuiteVoyage>()).first, "the voyage")
            try checkEqual(loaded.tags.map(\.label), ["far"], "tags after one was deleted with no action")
            try check(!fresh.hasChanges, "dropping a dangling reference on load is no change")
        },
        ConformanceCase(area: "relationships", name: "relationshipChangesAreUpdatesOfTheirKeyPathOnBothSides",
                        requires: [.updates, .history]) { target in
            let container = try target.makeContainer()
            let saved = try saveVoyage("Iceland", items: ["Geysir"], place: "Hotel Borg", into: container)
            let token = try container.currentHistoryToken()
            let context = ModelContext(container)
            let voyage = try require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first, "the voyage")
            voyage.bucketList.append(SuiteBucketItem(title: "Glacier"))
            try context.save()
            let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
            try checkEqual(transactions.count, 1, "transactions for appending an item")
            var voyageUpdates: [String] = []
            var insertedItems = 0
            for change in transactions[0].changes {
                switch change {
                case .update(let update as DefaultHistoryUpdate<SuiteVoyage>):
                    try checkEqual(update.changedPersistentIdentifier, saved.persistentModelID, "the updated voyage")
                    try check(update.updated(\SuiteVoyage.bucketList), "the voyage's update names \\SuiteVoyage.bucketList")
                    voyageUpdates.append(contentsOf: update.updatedAttributes.compactMap { SuiteVoyage.attributeName(of: $0) })
                case .insert(let insert as DefaultHistoryInsert<SuiteBucketItem>):
                    insertedItems += 1
                    let item = try require(try ModelContext(container).model(for: insert.changedPersistentIdentifier) as? SuiteBucketItem,
                                           "the inserted item")
                    try checkEqual(item.voyage?.id, saved.id, "the inserted item names its voyage")
                default:
                    break
                }
            }
            try checkEqual(voyageUpdates, ["bucketList"], "the voyage's updated attributes")
            try checkEqual(insertedItems, 1, "items inserted with the voyage's change")
        },
        ConformanceCase(area: "relationships", name: "predicatesAndSortsThatFollowARelationshipSeeItSet") { target in
            let container = try target.makeContainer()
            try saveVoyage("Iceland", items: ["Geysir", "Glacier"], place: "Hotel Borg", into: container)
            try saveVoyage("Chile", items: ["Andes"], place: "Casa", into: container)
            let context = ModelContext(container)
            let iceland = "Iceland"
            let followed = FetchDescriptor<SuiteBucketItem>(predicate: #Predicate { $0.voyage?.name == iceland },
                                                            sortBy: [SortDescriptor(\.title, order: .reverse)])
            try checkEqual(try context.fetch(followed).map(\.title), ["Glacier", "Geysir"], "items whose voyage is Iceland")
            try checkEqual(try ModelContext(container).fetchCount(followed), 2, "fetchCount through the relationship")
            try checkEqual(try ModelContext(container).fetchIdentifiers(followed).count, 2, "fetchIdentifiers through the relationship")
            let withItems = FetchDescriptor<SuiteVoyage>(predicate: #Predicate { $0.bucketList.count > 1 })
            try checkEqual(try ModelContext(container).fetch(withItems).map(\.name), ["Iceland"], "voyages with more than one item")
        },
        ConformanceCase(area: "relationships", name: "anInsertThatWouldUpdateAStoredModelsRelationshipsIsRefused",
                        requires: .updates) { target in
            let container = try target.makeContainer()
            let saved = try saveVoyage("Iceland", items: ["Geysir"], place: "Hotel Borg", into: container)
            let context = ModelContext(container)
            let again = SuiteVoyage(name: "Iceland again")   // no items: it would empty the stored bucket list
            again.id = saved.id
            context.insert(again)
            try checkThrows(DataStoreError(.constraintViolation, ""), "an insert with a stored id that would drop its items") {
                try context.save()
            }
            let fresh = ModelContext(container)
            let voyage = try require(try fresh.fetch(FetchDescriptor<SuiteVoyage>()).first, "the stored voyage")
            try checkEqual(voyage.name, "Iceland", "the stored voyage's name after the refused insert")
            try checkEqual(voyage.bucketList.map(\.title), ["Geysir"], "its items")
            try check(voyage.bucketList.allSatisfy { $0.voyage === voyage }, "its items still name it")
        },
        // The next three were found by an adversary.
        ConformanceCase(area: "relationships", name: "aFetchWithUnsavedChangesSetsRelationshipsAndKeepsOneInstancePerModel") { target in
            let container = try target.makeContainer()
            let saved = try saveVoyage("Iceland", items: ["Geysir", "Glacier"], place: "Hotel Borg", into: container)
            let context = ModelContext(container)
            context.insert(SuiteVoyage(name: "unsaved voyage"))
            context.insert(SuiteBucketItem(title: "unsaved item"))   // unsaved changes of both fetched types
            let voyage = try require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first { $0.id == saved.id }, "Iceland")
            let items = try context.fetch(FetchDescriptor<SuiteBucketItem>())
            let geysir = try require(items.first { $0.title == "Geysir" }, "Geysir")
            try check(geysir.voyage === voyage, "an item fetched with unsaved changes pending names the voyage instance")
            try check(voyage.bucketList.contains { $0 === geysir }, "the voyage holds the fetched item instance")
            try checkEqual(try context.fetchCount(FetchDescriptor<SuiteBucketItem>()), 3, "items counted with the unsaved one")
            try context.save()
            let stored = try ModelContext(container).fetch(FetchDescriptor<SuiteBucketItem>(sortBy: [SortDescriptor(\.title)]))
            try checkEqual(stored.map { "\($0.title) -> \($0.voyage?.name ?? "none")" },
                           ["Geysir -> Iceland", "Glacier -> Iceland", "unsaved item -> none"], "items after the save")
        },
        ConformanceCase(area: "relationships", name: "withoutPendingChangesAFollowingPredicateSeesStoredValuesOnly") { target in
            let container = try target.makeContainer()
            try saveVoyage("Iceland", items: ["Geysir", "Glacier"], place: "Hotel Borg", into: container)
            let context = ModelContext(container)
            let voyage = try require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first, "Iceland")
            let unsaved = SuiteBucketItem(title: "unsaved")
            unsaved.voyage = voyage
            context.insert(unsaved)
            try require(voyage.bucketList.first { $0.title == "Geysir" }, "Geysir").voyage = nil   // unsaved too
            let iceland = "Iceland"
            var descriptor = FetchDescriptor<SuiteBucketItem>(predicate: #Predicate { $0.voyage?.name == iceland },
                                                              sortBy: [SortDescriptor(\.title)])
            descriptor.includePendingChanges = false
            try checkEqual(try context.fetch(descriptor).map(\.title), ["Geysir", "Glacier"], "stored items of Iceland only")
            try checkEqual(try context.fetchCount(descriptor), 2, "their count")
            descriptor.includePendingChanges = true
            try checkEqual(try context.fetch(descriptor).map(\.title), ["Glacier", "unsaved"], "with pending changes")
        },
        ConformanceCase(area: "relationships", name: "aReferenceToAModelDeletedElsewhereIsDroppedEvenWhenHeld", requires: .updates) { target in
            let container = try target.makeContainer()
            _ = try saveTaggedVoyage(into: container)
            let holder = ModelContext(container)
            try checkEqual(try holder.fetch(FetchDescriptor<SuiteTag>()).count, 2, "tags held by a context")
            let other = ModelContext(container)
            other.delete(try require(try other.fetch(FetchDescriptor<SuiteTag>()).first { $0.label == "cold" }, "cold"))
            try other.save()
            let loaded = try require(try holder.fetch(FetchDescriptor<SuiteVoyage>()).first, "the voyage, loaded by the holder")
            try checkEqual(loaded.tags.map(\.label), ["far"], "tags: the one deleted elsewhere is dropped though held")
            try check(!holder.hasChanges, "dropping it is no change")
        },
        ConformanceCase(area: "relationships", name: "relationshipsSurviveReopening", requires: .persistence) { target in
            let configuration = try target.makeConfiguration()
            do {
                let container = try target.open(configuration)
                try saveVoyage("Iceland", items: ["Geysir", "Glacier"], place: "Hotel Borg", into: container)
            }
            let reopened = try target.open(configuration)
            let voyage = try require(try ModelContext(reopened).fetch(FetchDescriptor<SuiteVoyage>()).first, "the voyage after reopening")
            try checkEqual(voyage.bucketList.map(\.title), ["Geysir", "Glacier"], "items after reopening")
            try check(voyage.bucketList.allSatisfy { $0.voyage === voyage }, "inverses after reopening")
            try checkEqual(voyage.livingAccommodation?.place, "Hotel Borg", "the accommodation after reopening")
        },
    ]

    /// Saves a voyage with bucket-list items and an accommodation, setting only the voyage's side.
    @discardableResult
    static func saveVoyage(_ name: String, items: [String], place: String, into container: ModelContainer) throws -> SuiteVoyage {
        let context = ModelContext(container)
        let voyage = SuiteVoyage(name: name)
        voyage.bucketList = items.map(SuiteBucketItem.init(title:))
        voyage.livingAccommodation = SuiteAccommodation(place: place)
        context.insert(voyage)
        try context.save()
        return voyage
    }

    /// Saves a voyage tagged "cold" and "far" (tags have no inverse; the rule is no action).
    static func saveTaggedVoyage(into container: ModelContainer) throws -> (ModelContext, SuiteVoyage) {
        let context = ModelContext(container)
        let voyage = SuiteVoyage(name: "Tagged")
        voyage.tags = [SuiteTag(label: "cold"), SuiteTag(label: "far")]
        context.insert(voyage)
        try context.save()
        return (context, voyage)
    }

    static func voyages(_ first: SuiteVoyage, _ second: SuiteVoyage, in context: ModelContext) throws -> (SuiteVoyage, SuiteVoyage) {
        let all = try context.fetch(FetchDescriptor<SuiteVoyage>())
        return (try require(all.first { $0.id == first.id }, first.name), try require(all.first { $0.id == second.id }, second.name))
    }
}
