import Foundation
import MemoryStore
import StoreConformance
import StoreProtocol
import StoreTestSupport
import Testing

/// Loading relationships from the related rows a store sends along with a fetch
/// (`DataStoreFetchResult.relatedSnapshots`, the fast path) gives what fetching every related
/// model by key gives (the reference: a store that sends none), whatever a store sends; a row
/// under another identifier is refused; a row of a model another store keeps is not taken; a
/// model with unsaved changes keeps them.
///
/// Every container here opens one shared memory store through a ``RelatedRowsStore``, so that
/// the paths read the same rows.
@Suite struct RelatedRowLoadingTests {
    /// A shared memory store holding voyages of every shape loading meets: a to-many in order
    /// with a duplicate and unicode titles, an empty one, a large one (300 items); to-one
    /// relationships with and without an inverse, set and `nil`; a guide two voyages share;
    /// a to-many without an inverse naming a tag deleted since (no action: dropped on load).
    private static func fill() throws -> String {
        let name = "related-rows-\(UUID().uuidString)"
        let container = try open(name, .sendsNone)
        let context = ModelContext(container)
        let guide = SuiteGuide(name: "Ásgeir")
        let (cold, far, gone) = (SuiteTag(label: "cold"), SuiteTag(label: "far"), SuiteTag(label: "gone"))
        let iceland = SuiteVoyage(name: "Iceland 🇮🇸")
        iceland.bucketList = ["Geysir", "Glacier", "Lagoon", "Geysir", "Þingvellir", ""].map(SuiteBucketItem.init(title:))
        iceland.livingAccommodation = SuiteAccommodation(place: "Hotel Borg")
        iceland.guide = guide
        iceland.tags = [cold, far, gone]
        let chile = SuiteVoyage(name: "Chile")
        chile.tags = [far]
        chile.guide = guide
        let big = SuiteVoyage(name: "Big")
        big.bucketList = (0..<300).map { SuiteBucketItem(title: "item \($0)") }
        big.livingAccommodation = SuiteAccommodation(place: "Casa")
        for voyage in [iceland, chile, big, SuiteVoyage(name: "Empty")] { context.insert(voyage) }
        context.insert(SuiteAccommodation(place: "Nobody's"))
        try context.save()
        context.delete(gone)
        try context.save()
        return name
    }

    private static func open(_ name: String, _ mode: RelatedRowsMode, extraRelatedRows: [DefaultSnapshot] = []) throws -> ModelContainer {
        var configuration = RelatedRowsStoreConfiguration(MemoryStoreConfiguration(name: name, isShared: true), mode: mode)
        configuration.extraRelatedRows = extraRelatedRows
        return try ModelContainer(for: ConformanceModels.schema, configurations: [configuration])
    }

    private static func store(of container: ModelContainer) throws -> RelatedRowsStore<MemoryStoreConfiguration> {
        try #require(container.stores.first as? RelatedRowsStore<MemoryStoreConfiguration>)
    }

    /// The loaded graph, as text: every voyage with its items (and whether each names the voyage
    /// itself back), accommodation (likewise), guide and tags.
    private static func describe(_ voyages: [SuiteVoyage]) -> [String] {
        voyages.sorted { $0.name < $1.name }.map { voyage in
            let items = voyage.bucketList.map { "\($0.title)\($0.voyage === voyage ? "" : " (inverse lost)")" }
            let place = voyage.livingAccommodation.map { "\($0.place)\($0.voyage === voyage ? "" : " (inverse lost)")" } ?? "none"
            return "\(voyage.name): items \(items), at \(place), guide \(voyage.guide?.name ?? "none"), tags \(voyage.tags.map(\.label))"
        }
    }

    /// The graph a fresh context loads from a fetch of every voyage, and from a fetch of one item
    /// (its voyage a level away, the voyage's other relationships two levels away).
    private static func loadedGraphs(_ container: ModelContainer) throws -> (voyages: [String], fromAnItem: [String]) {
        let context = ModelContext(container)
        let voyages = describe(try context.fetch(FetchDescriptor<SuiteVoyage>()))
        #expect(!context.hasChanges, "loading relationships changes nothing")
        let other = ModelContext(container)
        let item = try #require(try other.fetch(FetchDescriptor<SuiteBucketItem>(predicate: #Predicate { $0.title == "Glacier" })).first)
        let voyage = try #require(item.voyage)
        #expect(voyage.bucketList.contains { $0 === item }, "the item is the instance its voyage holds")
        return (voyages, describe([voyage]))
    }

    @Test(arguments: [RelatedRowsMode.passesThrough, .sendsHalf, .addsUnaskedRows])
    func theRelatedRowsLoadWhatFetchingByKeyLoads(_ mode: RelatedRowsMode) throws {
        let name = try Self.fill()
        let reference = try Self.loadedGraphs(Self.open(name, .sendsNone))
        #expect(reference.voyages.count == 4)
        #expect(reference.voyages.contains("Iceland 🇮🇸: items [\"Geysir\", \"Glacier\", \"Lagoon\", \"Geysir\", \"Þingvellir\", \"\"], "
                                           + "at Hotel Borg, guide Ásgeir, tags [\"cold\", \"far\"]"), "\(reference.voyages)")
        let container = try Self.open(name, mode)
        let fast = try Self.loadedGraphs(container)
        #expect(fast.voyages == reference.voyages)
        #expect(fast.fromAnItem == reference.fromAnItem)
    }

    /// The fast path is taken: with every related row sent, a fetch asks the store once, and once
    /// more for the deleted tag only (no row sent: it may be stored), however many levels away
    /// the related models are.
    @Test func aFetchWithEveryRelatedRowSentAsksTheStoreOnlyForTheRowsNotSent() throws {
        let name = try Self.fill()
        let slow = try Self.open(name, .sendsNone)
        _ = try ModelContext(slow).fetch(FetchDescriptor<SuiteVoyage>())
        #expect(try Self.store(of: slow).fetches == 5, "voyages, then items, accommodations, guides and tags by key")
        let fast = try Self.open(name, .passesThrough)
        _ = try ModelContext(fast).fetch(FetchDescriptor<SuiteVoyage>())
        #expect(try Self.store(of: fast).fetches == 2, "voyages with their related rows, then the deleted tag by key")
        // An item: its voyage a level away, the voyage's relationships two levels away.
        let slowItem = try Self.open(name, .sendsNone)
        _ = try ModelContext(slowItem).fetch(FetchDescriptor<SuiteBucketItem>(predicate: #Predicate { $0.title == "Glacier" }))
        #expect(try Self.store(of: slowItem).fetches == 6, "the item, its voyage, then the voyage's items, accommodation, guide, tags")
        let fastItem = try Self.open(name, .passesThrough)
        _ = try ModelContext(fastItem).fetch(FetchDescriptor<SuiteBucketItem>(predicate: #Predicate { $0.title == "Glacier" }))
        #expect(try Self.store(of: fastItem).fetches == 2, "the item with every level of related rows, then the deleted tag")
    }

    /// The negative control of the comparison: rows with other values than the stored ones (a
    /// stale cache) load another graph, which the comparison above would report.
    @Test func staleRelatedRowsLoadAnotherGraph() throws {
        let name = try Self.fill()
        let reference = try Self.loadedGraphs(Self.open(name, .sendsNone))
        let stale = try Self.loadedGraphs(Self.open(name, .sendsStaleValues))
        #expect(stale.voyages != reference.voyages)
        #expect(stale.voyages.contains { $0.contains("Hotel Borg (stale)") }, "\(stale.voyages)")
    }

    @Test func relatedRowsUnderAnotherIdentifierAreRefusedBeforeAnyModelIsRegistered() throws {
        let name = try Self.fill()
        let context = ModelContext(try Self.open(name, .misKeysRows))
        #expect {
            _ = try context.fetch(FetchDescriptor<SuiteVoyage>())
        } throws: { ($0 as? DataStoreError)?.code == .corruptStore }
        let reference = ModelContext(try Self.open(name, .sendsNone))
        for voyage in try reference.fetch(FetchDescriptor<SuiteVoyage>()) {
            let registered: SuiteVoyage? = context.registeredModel(for: voyage.persistentModelID)
            #expect(registered == nil, "\(voyage.name) was not registered")
        }
    }

    /// Models with unsaved changes and deleted models keep their state when a fetch brings their
    /// rows along; the others take the stored values, as when fetched by key.
    @Test(arguments: [RelatedRowsMode.passesThrough, .sendsNone])
    func unsavedChangesAndDeletesAreKeptWhenRelatedRowsArrive(_ mode: RelatedRowsMode) throws {
        let name = try Self.fill()
        let container = try Self.open(name, mode)
        let context = ModelContext(container)
        let voyage = try #require(try context.fetch(FetchDescriptor<SuiteVoyage>()).first { $0.name == "Iceland 🇮🇸" })
        let (geysir, glacier, lagoon) = (voyage.bucketList[0], voyage.bucketList[1], voyage.bucketList[2])
        geysir.title = "Geysir (mine, unsaved)"
        context.delete(lagoon)
        // Another context saves the voyage, the accommodation and two items; the voyage's new
        // row makes the next fetch load its relationships again.
        let other = ModelContext(container)
        let theirs = try #require(try other.fetch(FetchDescriptor<SuiteVoyage>()).first { $0.name == "Iceland 🇮🇸" })
        theirs.name = "Iceland (theirs)"
        theirs.livingAccommodation?.place = "Hotel Holt (theirs)"
        theirs.bucketList[0].title = "Geysir (theirs)"
        theirs.bucketList[1].title = "Glacier (theirs)"
        try other.save()
        _ = try context.fetch(FetchDescriptor<SuiteVoyage>())
        #expect(voyage.name == "Iceland (theirs)")
        #expect(geysir.title == "Geysir (mine, unsaved)", "an unsaved change is kept")
        #expect(glacier.title == "Glacier (theirs)", "a model without changes takes the stored values")
        #expect(voyage.livingAccommodation?.place == "Hotel Holt (theirs)")
        #expect(context.deletedModelsArray.contains { $0 === lagoon }, "a deleted model stays deleted")
        #expect(lagoon.title == "Lagoon")
    }

    /// A row of a model that another store of the container keeps is not taken from the rows a
    /// store sends, even under its own identifier: that store is asked.
    @Test func aRelatedRowOfAModelAnotherStoreKeepsIsNotTaken() throws {
        // Guides first: their store keeps them (the voyages' store's schema holds the entity too).
        let guides = MemoryStoreConfiguration(name: "guides-\(UUID().uuidString)", schema: Schema(SuiteGuide.self), isShared: true)
        let voyagesName = "voyages-\(UUID().uuidString)"
        func open(_ extra: [DefaultSnapshot]) throws -> ModelContainer {
            var voyages = RelatedRowsStoreConfiguration(MemoryStoreConfiguration(name: voyagesName, isShared: true), mode: .passesThrough)
            voyages.extraRelatedRows = extra
            return try ModelContainer(for: Schema(SuiteVoyage.self), configurations: [guides, voyages])
        }
        let context = ModelContext(try open([]))
        let voyage = SuiteVoyage(name: "Iceland")
        let guide = SuiteGuide(name: "Ásgeir")
        voyage.guide = guide
        voyage.bucketList = [SuiteBucketItem(title: "Geysir")]
        context.insert(voyage)
        try context.save()
        let guidesStore = try #require(context.container.stores.first)
        func count<S: DataStore>(_ store: S) throws -> Int { try store.fetchCount(DataStoreFetchRequest(descriptor: FetchDescriptor<SuiteGuide>())) }
        #expect(try count(guidesStore) == 1, "the guide is kept by the guides' store")
        let forged = DefaultSnapshot(persistentIdentifier: guide.persistentModelID,
                                     values: ["id": guide.persistentModelID.primaryKey, "name": .string("Forged")])
        let loaded = try #require(try ModelContext(try open([forged])).fetch(FetchDescriptor<SuiteVoyage>()).first)
        #expect(loaded.guide?.name == "Ásgeir")
        #expect(loaded.bucketList.map(\.title) == ["Geysir"])
        #expect(loaded.bucketList.first?.voyage === loaded)
    }
}
