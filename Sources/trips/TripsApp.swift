import Foundation
import JSONStore
import LogStore
import MemoryStore
import StoreProtocol
import StoreFiles
import StoreSync

/// The talk's SampleTrips feature: the widget changes trips, the app finds the ones with unread
/// changes through history after its saved token.
struct TripsApp {
    static let usage = """
    usage: trips [--store LOCATION] [--json] COMMAND
      add NAME --destination D --start 2026-06-01 --end 2026-06-05   add a trip (author: app)
      list                                   every trip, with its accommodation and bucket-list size
      show NAME                              one trip, its accommodation and its bucket list
      item NAME --title T [--notes N]        add an item to the trip's bucket list (author: app)
      favorite NAME                          mark a trip as a favourite
      delete NAME                            delete a trip, its bucket list and accommodation (tombstones stay in history)
      seed --count N                         add N sample trips, with bucket-list items
      confirm NAME [--author widget]         the widget: confirm the trip's accommodation
      unread [--from widget]                 the app: trips changed since its saved token
      history                                every transaction and its changes
      watch                                  new transactions as they happen, until interrupted
      prune --all | --before DATE | --consumed   delete history (--consumed: what every reader has read)
      demo                                   one round: sample trips, the widget confirms, the app reads
      sync --remote LOCATION                 push this store's changes to a shared store and pull the others' (json: stores);
                                             the unread trips include what the pull brought
    LOCATION (or TRIPS_STORE): \(StoreSchemes.locationsHelp)
    """

    let arguments: Arguments
    let output: Output
    let container: ModelContainer
    /// Where the app keeps its token and the consumers file; `nil` for memory stores.
    let sidecar: String?

    /// The store when neither `--store` nor `TRIPS_STORE` names one: a folder of its own in the
    /// working directory (listed in .gitignore), so that `trips demo` in a clone leaves one ignored
    /// folder rather than the store's, the activity log's, the token's and the consumers' files.
    static let defaultFolder = ".trips"
    static let defaultLocation = "json:\(defaultFolder)/trips.json"

    init(arguments: Arguments) throws {
        self.arguments = arguments
        output = Output(json: arguments.flag("json"))
        let location = arguments.options["store"] ?? ProcessInfo.processInfo.environment["TRIPS_STORE"] ?? Self.defaultLocation
        if location == Self.defaultLocation {
            try FileManager.default.createDirectory(atPath: Self.defaultFolder, withIntermediateDirectories: true)
        }
        let registry = StoreSchemes.registry()
        let parsed = try StoreLocation(parsing: location)
        if parsed.scheme == "json" {
            // Trips in the JSON store; the activity log in a log store beside it. One history
            // token covers both.
            var trips = try registry.configuration(for: location)
            // Trip's schema brings in its related types, BucketListItem and LivingAccommodation;
            // the replicator's models come with the third release.
            trips.schema = Schema(versionedSchema: TripsSchemaV3.self)
            let activity = LogStoreConfiguration(
                directory: URL(filePath: try parsed.requirePath("path") + ".activity"), schema: Schema(Activity.self),
                timestamps: [LogTimestamp(\Activity.timestamp)])
            // A store of an earlier release is migrated as it opens (TripsMigrationPlan). A
            // replicator syncs a container of one store: `sync` opens the trips store alone (the
            // activity log stays on this machine).
            container = arguments.command == "sync"
                ? try ModelContainer(for: Schema(versionedSchema: TripsSchemaV3.self), migrationPlan: TripsMigrationPlan.self, configurations: [trips])
                : try ModelContainer(for: Schema([Trip.self, Activity.self] + Replicator.models), migrationPlan: TripsMigrationPlan.self,
                                     configurations: [trips, activity])
        } else {
            container = try ModelContainer(for: Trip.self, Activity.self, location: location, registry: registry)
        }
        sidecar = StoreSchemes.sidecar(for: parsed)
    }

    func run() async throws {
        switch arguments.command {
        case "add": try add()
        case "list": try list()
        case "show": try show()
        case "item": try item()
        case "favorite": try favorite()
        case "delete": try delete()
        case "seed": try seed()
        case "confirm": try confirm()
        case "unread": try unread()
        case "history": try history()
        case "watch": try await watch()
        case "prune": try prune()
        case "demo": try demo()
        case "sync": try await sync()
        case nil: throw UsageError("give a command")
        case let other?: throw UsageError("unknown command '\(other)'")
        }
    }

    // MARK: Trips

    func context(author: String) -> ModelContext {
        let context = ModelContext(container)
        context.author = arguments.options["author"] ?? author
        return context
    }

    func trip(named name: String, in context: ModelContext) throws -> Trip {
        guard let trip = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })).first else {
            throw TripsError("there is no trip named '\(name)' (see `trips list`)")
        }
        return trip
    }

    func add() throws {
        let context = context(author: "app")
        let name = try arguments.name(), destination = try arguments.required("destination")
        let start = try arguments.date("start"), end = try arguments.date("end")
        guard start <= end else { throw UsageError("--end must not be before --start") }
        // The same name and dates is the same trip (the unique constraint): update the stored
        // one rather than insert a new instance for the store to upsert, which would replace
        // its bucket list and accommodation with the new instance's empty ones and leave them
        // naming a trip that no longer lists them (nor deletes them with it).
        let existing = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate {
            $0.name == name && $0.startDate == start && $0.endDate == end
        })).first
        if let existing {
            existing.destination = destination
        } else {
            context.insert(Trip(name: name, destination: destination, startDate: start, endDate: end))
        }
        context.insert(Activity(kind: "added", tripName: name))
        try context.save()
        output.object(["added": name], text: "Added \(name): \(destination), \(Dates.day(start)) to \(Dates.day(end)).")
    }

    func list() throws {
        let context = ModelContext(container)
        // The context loads each trip's accommodation and bucket list with it, in one batch each.
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate), SortDescriptor(\.name)]))
        output.table(["Name", "Destination", "Start", "End", "Items", "Accommodation"], trips.map { trip in
            [trip.name + (trip.isFavorite ? " *" : ""), trip.destination, Dates.day(trip.startDate), Dates.day(trip.endDate), "\(trip.bucketList.count)",
             trip.livingAccommodation.map(Self.describe(stay:)) ?? "-"]
        }, empty: "No trips yet. Add one: trips add NAME --destination D --start 2026-06-01 --end 2026-06-05")
    }

    static func describe(stay: LivingAccommodation) -> String {
        "\(stay.placeName)\(stay.isConfirmed ? " (confirmed)" : "")"
    }

    /// One trip with what it holds: the relationships, as the context loaded them.
    func show() throws {
        let trip = try trip(named: try arguments.name(), in: ModelContext(container))
        let stay = trip.livingAccommodation
        let items = trip.bucketList
        let accommodation: Any = stay.map {
            ["placeName": $0.placeName, "address": $0.address, "isConfirmed": $0.isConfirmed] as [String: Any]
        } ?? NSNull()
        let fields: [String: Any] = [
            "name": trip.name, "destination": trip.destination, "isFavorite": trip.isFavorite,
            "start": Dates.day(trip.startDate), "end": Dates.day(trip.endDate),
            "accommodation": accommodation,
            "bucketList": items.map { ["title": $0.title, "notes": $0.notes, "hasReservation": $0.hasReservation, "isInPlan": $0.isInPlan] },
        ]
        var text = ["\(trip.name): \(trip.destination), \(Dates.day(trip.startDate)) to \(Dates.day(trip.endDate))",
                    "Accommodation: " + (stay.map { "\(Self.describe(stay: $0)), \($0.address)" } ?? "none")]
        if items.isEmpty {
            text.append("Bucket list: empty")
        } else {
            text.append("Bucket list:")
            text += items.map { "  - \($0.title)\($0.notes.isEmpty ? "" : ": \($0.notes)")\($0.hasReservation ? " (reserved)" : "")" }
        }
        output.object(fields, text: text.joined(separator: "\n"))
    }

    /// Marks a trip as a favourite (an attribute the second release added).
    func favorite() throws {
        let context = context(author: "app")
        let trip = try trip(named: try arguments.name(), in: context)
        trip.isFavorite = true
        try context.save()
        output.object(["favorite": trip.name], text: "\(trip.name) is a favourite.")
    }

    /// Adds an item to a trip's bucket list by setting the item's side, `item.trip`: the save
    /// adds it to `trip.bucketList`.
    func item() throws {
        let context = context(author: "app")
        let name = try arguments.name()
        let trip = try trip(named: name, in: context)
        let item = BucketListItem(title: try arguments.required("title"), notes: arguments.options["notes"] ?? arguments.options["details"] ?? "")
        // Inserted explicitly: until the save keeps the inverse in step, the trip does not hold
        // it, so inserting the trip's related models would not reach it.
        context.insert(item)
        item.trip = trip
        context.insert(Activity(kind: "item added", tripName: name))
        try context.save()
        output.object(["item": item.title, "trip": name], text: "Added \(item.title) to \(name)'s bucket list.")
    }

    /// Deletes the trip; its delete rules (cascade) delete its bucket list and accommodation in
    /// the same transaction.
    func delete() throws {
        let context = context(author: "app")
        let name = try arguments.name()
        let trip = try trip(named: name, in: context)
        context.delete(trip)
        context.insert(Activity(kind: "deleted", tripName: name))
        try context.save()
        output.object(["deleted": name], text: "Deleted \(name).")
    }

    func seed() throws {
        let count = try arguments.integer("count", default: 10)
        let destinations = ["Reykjavík", "Kyoto", "Lisbon", "Patagonia", "Oslo", "Marrakesh", "Hobart", "Quebec"]
        let progress = ProgressBar(total: count)
        let first = Date(timeIntervalSince1970: 1_780_272_000)   // 2026-06-01
        var done = 0
        while done < count {
            // A context per batch: a context re-checks every model it holds at each save.
            let context = context(author: "app")
            for index in done..<min(count, done + 1_000) {
                let start = first.addingTimeInterval(Double(index % 365) * 86_400)
                let trip = Trip(name: "Sample trip \(index + 1)", destination: destinations[index % destinations.count],
                                startDate: start, endDate: start.addingTimeInterval(Double(2 + index % 10) * 86_400))
                // Zero to three items each; inserting the trip inserts them.
                trip.bucketList = Self.sampleItems(for: trip.destination, count: index % 4)
                context.insert(trip)
            }
            context.insert(Activity(kind: "seeded", tripName: "\(min(count, done + 1_000) - done) trips"))
            try context.save()
            done = min(count, done + 1_000)
            progress.update(done)
        }
        output.object(["seeded": count], text: "Added \(count) sample trips.")
    }

    /// Things to do at each sample destination.
    static let sampleSights: [String: [String]] = [
        "Reykjavík": ["Blue Lagoon", "Golden Circle", "Northern lights"],
        "Kyoto": ["Fushimi Inari", "Tea ceremony", "Arashiyama bamboo grove"],
        "Lisbon": ["Tram 28", "Pastéis de Belém", "Fado night"],
        "Patagonia": ["Torres del Paine", "Perito Moreno glacier", "Fitz Roy trek"],
        "Oslo": ["Opera house roof", "Vigeland park", "Fjord cruise"],
        "Marrakesh": ["Jemaa el-Fnaa", "Majorelle garden", "Atlas day trip"],
        "Hobart": ["MONA", "Salamanca market", "kunanyi summit"],
        "Quebec": ["Old Quebec walls", "Montmorency falls", "Île d'Orléans"],
    ]

    /// Up to `count` bucket-list items for a destination, the first one reserved.
    static func sampleItems(for destination: String, count: Int) -> [BucketListItem] {
        (sampleSights[destination] ?? []).prefix(count).enumerated().map { index, title in
            BucketListItem(title: title, notes: "in \(destination)", hasReservation: index == 0, isInPlan: true)
        }
    }

    /// The widget's change: confirm the trip's accommodation, adding one if it has none.
    func confirm() throws {
        let context = context(author: "widget")
        let name = try arguments.name()
        let stay = Self.confirmAccommodation(of: try trip(named: name, in: context))
        context.insert(Activity(kind: "confirmed", tripName: name))
        try context.save()
        output.object(["confirmed": name], text: "Confirmed \(stay.placeName) for \(name).")
    }

    /// Confirms the trip's accommodation, giving it one if it has none. Setting
    /// `trip.livingAccommodation` is enough: the save inserts the new accommodation and sets its
    /// `trip`.
    static func confirmAccommodation(of trip: Trip) -> LivingAccommodation {
        let stay = trip.livingAccommodation ?? LivingAccommodation(placeName: "Hotel \(trip.destination)",
                                                                   address: "Central \(trip.destination)")
        trip.livingAccommodation = stay
        stay.isConfirmed = true
        return stay
    }

    // MARK: History

    var tokenURL: URL? { sidecar.map { URL(filePath: $0 + ".app-token") } }
    var consumers: HistoryConsumers { HistoryConsumers(url: sidecar.map { URL(filePath: $0 + ".consumers") }) }

    func savedToken() throws -> DefaultHistoryToken? {
        guard let tokenURL, FileManager.default.fileExists(atPath: tokenURL.path) else { return nil }
        do { return try JSONDecoder().decode(DefaultHistoryToken.self, from: Data(contentsOf: tokenURL)) } catch {
            throw TripsError("\(tokenURL.path) is not a history token (\(error)); delete it to start over")
        }
    }

    func save(_ token: DefaultHistoryToken) throws {
        if let tokenURL { try JSONEncoder().encode(token).write(to: tokenURL, options: .atomic) }
        try consumers.record(token, for: "app")
    }

    /// The app: which trips did the widget change since the app last looked?
    func unread() throws {
        let author = arguments.options["from"] ?? "widget"
        let token = try savedToken()
        let transactions: [DefaultHistoryTransaction]
        do {
            transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
        } catch let error as HistoryError where error.code == .historyTokenExpired {
            output.note("The saved history position has expired: history up to it was pruned. Starting fresh from now; "
                        + "`trips list` shows every trip.")
            try save(try container.currentHistoryToken())
            output.table(["Trip", "Change"], [], empty: "No unread changes.")
            return
        }
        // One row per trip that needs a badge, with what changed, in the order first changed.
        let context = ModelContext(container)
        var trips: [String] = []
        var changes: [String: [String]] = [:]
        for transaction in transactions where transaction.author == author || Self.arrivedThroughSync(transaction) {
            for change in transaction.changes {
                for (trip, what) in try describeForBadge(change, context: context) {
                    if changes[trip] == nil { trips.append(trip) }
                    if !(changes[trip]?.contains(what) ?? false) { changes[trip, default: []].append(what) }
                }
            }
        }
        try save(transactions.last?.token ?? token ?? container.currentHistoryToken())
        output.table(["Trip", "Change"], trips.map { [$0, Self.summarize(changes[$0, default: []]).joined(separator: ", ")] },
                     empty: "No unread changes.")
    }

    /// Whether `trips sync` saved a transaction: the replicator authors its saves "StoreSync/…"
    /// (what a pull brought: "StoreSync/<origin>/<first>-<last>"; its own dating and positions change
    /// only its models, which badge nothing). Changes made elsewhere need a badge whoever made them.
    static func arrivedThroughSync(_ transaction: DefaultHistoryTransaction) -> Bool {
        transaction.author?.hasPrefix("StoreSync/") == true
    }

    /// A relationship change shows on both sides: confirming a new accommodation is its insert
    /// and the trip's update of `livingAccommodation`. Says it once.
    static func summarize(_ changes: [String]) -> [String] {
        let accommodationNamed = changes.contains("accommodation confirmed") || changes.contains("accommodation added")
        return changes.filter { !(accommodationNamed && $0 == "accommodation changed") }
    }

    /// The trips a change badges, and why: an accommodation or bucket-list item badges the trip
    /// it belongs to (`stay.trip`, `item.trip`), a trip its own changes.
    func describeForBadge(_ change: HistoryChange, context: ModelContext) throws -> [(trip: String, change: String)] {
        /// The trip a deleted model's tombstone names, when it is still there.
        func tripName(_ identifiers: [PersistentIdentifier]) throws -> String? {
            guard let id = identifiers.first else { return nil }
            return (try context.model(for: id) as? Trip)?.name
        }
        switch change {
        case .insert(let insert as DefaultHistoryInsert<LivingAccommodation>):
            guard let stay = try context.model(for: insert.changedPersistentIdentifier) as? LivingAccommodation,
                  let trip = stay.trip else { return [] }
            return [(trip.name, stay.isConfirmed ? "accommodation confirmed" : "accommodation added")]
        case .update(let update as DefaultHistoryUpdate<LivingAccommodation>):
            // A stay a trip let go of names no trip any more: the trip's own update badges it.
            guard let stay = try context.model(for: update.changedPersistentIdentifier) as? LivingAccommodation,
                  let trip = stay.trip else { return [] }
            return [(trip.name, update.updated(\.isConfirmed) && stay.isConfirmed ? "accommodation confirmed" : "accommodation changed")]
        case .delete(let delete as DefaultHistoryDelete<LivingAccommodation>):
            return try tripName(delete.tombstone.identifiers(\.trip)).map { [($0, "accommodation removed")] } ?? []
        case .insert(let insert as DefaultHistoryInsert<BucketListItem>):
            guard let item = try context.model(for: insert.changedPersistentIdentifier) as? BucketListItem,
                  let trip = item.trip else { return [] }
            return [(trip.name, "bucket list changed")]
        case .update(let update as DefaultHistoryUpdate<BucketListItem>):
            guard let item = try context.model(for: update.changedPersistentIdentifier) as? BucketListItem,
                  let trip = item.trip else { return [] }
            return [(trip.name, "bucket list changed")]
        case .delete(let delete as DefaultHistoryDelete<BucketListItem>):
            return try tripName(delete.tombstone.identifiers(\.trip)).map { [($0, "bucket list changed")] } ?? []
        case .update(let update as DefaultHistoryUpdate<Trip>):
            guard let trip = try context.model(for: update.changedPersistentIdentifier) as? Trip else { return [] }
            var what: [String] = []
            if update.updated(\.livingAccommodation) { what.append("accommodation changed") }
            if update.updated(\.bucketList) { what.append("bucket list changed") }
            if update.updatedAttributes.contains(where: { $0 != \Trip.livingAccommodation && $0 != \Trip.bucketList }) {
                what.append("trip changed")
            }
            return what.map { (trip.name, $0) }
        case .delete(let delete as DefaultHistoryDelete<Trip>):
            return [(delete.tombstone[\.name] ?? "?", "trip deleted")]
        default:
            return []
        }
    }

    func storeName(_ identifier: String) -> String {
        switch container.stores.first(where: { $0.identifier == identifier }) {
        case is JSONStore: return "trips"
        case is LogStore: return "activity"
        case let store?: return "\(type(of: store))"
        case nil: return identifier
        }
    }

    func describe(_ change: HistoryChange, context: ModelContext) -> String {
        func label(_ id: PersistentIdentifier) -> String {
            switch (try? context.model(for: id)) ?? nil {
            case let trip as Trip: return "Trip '\(trip.name)'"
            case let stay as LivingAccommodation: return "LivingAccommodation '\(stay.placeName)'"
            case let item as BucketListItem: return "BucketListItem '\(item.title)'"
            case let activity as Activity: return "Activity \(activity.kind) '\(activity.tripName)'"
            default: return id.entityName
            }
        }
        switch change {
        case .insert(let insert): return "+ " + label(insert.changedPersistentIdentifier)
        case .update(let update as DefaultHistoryUpdate<Trip>): return "~ " + label(update.changedPersistentIdentifier) + attributes(update.updatedAttributes)
        case .update(let update as DefaultHistoryUpdate<LivingAccommodation>): return "~ " + label(update.changedPersistentIdentifier) + attributes(update.updatedAttributes)
        case .update(let update as DefaultHistoryUpdate<BucketListItem>): return "~ " + label(update.changedPersistentIdentifier) + attributes(update.updatedAttributes)
        case .update(let update): return "~ " + label(update.changedPersistentIdentifier)
        case .delete(let delete as DefaultHistoryDelete<Trip>): return "- Trip " + describe(delete.tombstone)
        case .delete(let delete as DefaultHistoryDelete<LivingAccommodation>): return "- LivingAccommodation " + describe(delete.tombstone)
        case .delete(let delete as DefaultHistoryDelete<BucketListItem>): return "- BucketListItem " + describe(delete.tombstone)
        case .delete(let delete): return "- " + delete.changedPersistentIdentifier.entityName
        }
    }

    /// The stored names of updated attributes: an @Model's key paths name its accessors, which
    /// print as `<computed …>`, so the names come from the model's metadata.
    func attributes<Model: PersistentModel>(_ keyPaths: [any PartialKeyPath<Model> & Sendable]) -> String {
        "(" + keyPaths.map { Model.attributeName(of: $0) ?? "\($0)" }.joined(separator: ", ") + ")"
    }

    func describe<Model>(_ tombstone: HistoryTombstone<Model>) -> String {
        "(tombstone: " + tombstone.map { "\($0.attributeName)=\(tombstoneValue($0.value))" }.joined(separator: ", ") + ")"
    }

    func tombstoneValue(_ value: SnapshotValue) -> String {
        if case .date(let date) = value { return Dates.day(date) }
        if case .string(let text) = value { return text }
        return value.description
    }

    func row(_ transaction: DefaultHistoryTransaction, context: ModelContext) -> [String] {
        ["\(storeName(transaction.storeIdentifier))#\(transaction.transactionIdentifier)", Dates.time(transaction.timestamp),
         transaction.author ?? "-", transaction.changes.map { describe($0, context: context) }.joined(separator: "; ")]
    }

    func history() throws {
        let context = ModelContext(container)
        let transactions = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        output.table(["Transaction", "Time", "Author", "Changes"], transactions.map { row($0, context: context) }, empty: "No history.")
    }

    func watch() async throws {
        output.note("Watching for new transactions (Ctrl-C to stop)…")
        for try await transaction in container.historyUpdates() {
            let context = ModelContext(container)
            output.table(["Transaction", "Time", "Author", "Changes"], [row(transaction, context: context)], empty: "")
        }
    }

    func prune() throws {
        if arguments.flag("all") {
            try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            output.object(["pruned": "all"], text: "Deleted all history.")
        } else if let before = arguments.options["before"] {
            let date = try Arguments.parseDate(before, option: "before")
            try container.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.timestamp < date }))
            output.object(["pruned": "before \(before)"], text: "Deleted history before \(before).")
        } else if arguments.flag("consumed") {
            try container.deleteHistoryReadByAllConsumers(consumers)
            output.object(["pruned": "consumed"], text: "Deleted the history every reader has read.")
        } else {
            throw UsageError("prune needs --all, --before DATE or --consumed")
        }
    }

    // MARK: Sync

    /// One round of the replicator between this store and a shared one (`--remote`, any scheme;
    /// `postgres://…` in the PostgreSQL build): pulls what other replicas pushed, pushes what
    /// was saved here since the last round, and prints the round's counts.
    func sync() async throws {
        let remoteLocation = try arguments.required("remote")
        guard container.stores.count == 1, container.stores.first is JSONStore else {
            throw UsageError("sync replicates a json: store (the trips file; its activity log stays local): give --store json:PATH")
        }
        let schema = Schema(versionedSchema: TripsSchemaV3.self)
        var remoteConfiguration = try StoreSchemes.registry().configuration(for: remoteLocation)
        remoteConfiguration.schema = schema
        let remote = try ModelContainer(for: schema, migrationPlan: TripsMigrationPlan.self, configurations: [remoteConfiguration])
        let report = try await Replicator(local: container, remote: remote).sync()
        let counts: [String: Any] = [
            "pushed": report.pushedTransactions, "pulled": report.pulledTransactions, "changes": report.appliedChanges,
            "skipped": report.skippedTransactions, "resolved": report.resolutions, "resynced": report.resynced,
        ]
        output.object(counts, text: "Synced: pushed \(report.pushedTransactions), pulled \(report.pulledTransactions) transactions "
            + "(\(report.appliedChanges) changes, \(report.skippedTransactions) skipped, \(report.resolutions) conflicts resolved)"
            + (report.resynced ? "; a side's history no longer reached back, so the stores were compared in full." : "."))
    }

    /// One round of the feature for a newcomer: sample trips, a widget change, the app's badges.
    func demo() throws {
        if try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0 {
            for (name, destination, start) in [("Iceland", "Reykjavík", "2026-06-01"), ("Japan", "Kyoto", "2026-09-10"), ("Portugal", "Lisbon", "2026-11-02")] {
                let context = context(author: "app")
                let day = try Arguments.parseDate(start, option: "start")
                let trip = Trip(name: name, destination: destination, startDate: day, endDate: day.addingTimeInterval(5 * 86_400))
                trip.bucketList = Self.sampleItems(for: destination, count: 2)
                context.insert(trip)
                try context.save()
            }
            output.line("The app added three trips.")
        }
        if try savedToken() == nil { try save(try container.currentHistoryToken()) }
        let widget = context(author: "widget")
        let first = try widget.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)])).first
        if let first {
            _ = Self.confirmAccommodation(of: first)
            try widget.save()
            output.line("The widget confirmed the accommodation of \(first.name).")
        }
        output.line("The app's unread trips, from history after its saved token:")
        try unread()
    }
}

/// A failure to report in one line.
struct TripsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
