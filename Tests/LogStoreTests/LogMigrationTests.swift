import Foundation
@testable import LogStore
import DataStores
import StoreTestSupport
import Testing

// MARK: Models: one entity, "MigrationEvent", as two versions of an app declare it

/// Version 1: an event placed in time by `at`.
@Model final class EventV1 {
    static var entityName: String { "MigrationEvent" }
    var id = UUID()
    var at: Date
    var label: String

    init(id: UUID, at: Date, label: String) {
        self.id = id
        self.at = at
        self.label = label
    }
}

/// The default of ``EventV2/checked``: fractional seconds, to show a default survives the
/// identity file exactly.
let checkedDefault = Date(timeIntervalSince1970: 1_767_225_600.125)

/// Version 2: `at` is `time` (still the timestamp), `label` is `title`, and two new attributes
/// have defaults.
@Model final class EventV2 {
    static var entityName: String { "MigrationEvent" }
    var id = UUID()
    @Attribute(originalName: "at") var time: Date
    @Attribute(originalName: "label") var title: String
    var level: Int = 1
    var checked: Date = checkedDefault

    init(id: UUID, time: Date, title: String) {
        self.id = id
        self.time = time
        self.title = title
    }
}

/// Version 2 under a new entity name as well.
@Model final class Occurrence {
    static var entityName: String { "MigrationOccurrence" }
    static var originalEntityName: String? { "MigrationEvent" }
    var id = UUID()
    @Attribute(originalName: "at") var time: Date
    @Attribute(originalName: "label") var title: String

    init(id: UUID, time: Date, title: String) {
        self.id = id
        self.time = time
        self.title = title
    }
}

/// An entity that version 2 renames to ``Signal``.
@Model final class Ping {
    static var entityName: String { "MigrationPing" }
    var id = UUID()
    var value: Int

    init(id: UUID = UUID(), value: Int) {
        self.id = id
        self.value = value
    }
}

@Model final class Signal {
    static var entityName: String { "MigrationSignal" }
    static var originalEntityName: String? { "MigrationPing" }
    var id = UUID()
    var value: Int

    init(id: UUID = UUID(), value: Int) {
        self.id = id
        self.value = value
    }
}

enum EventSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [EventV1.self] }
}

enum EventSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [EventV2.self] }
}

/// Lightweight from version 1 to 2.
enum EventMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [EventSchemaV1.self, EventSchemaV2.self] }
    static var stages: [MigrationStage] { [] }
}

/// Schema migration of a log: a migration rewrites the identity file only, and reads apply it to
/// the records written before. The letters (a)–(e) name the cases the migration's design asked for.
@Suite struct LogMigrationTests {
    enum Model { case v1, v2, occurrence }

    /// One event as written in version 1.
    struct Event {
        var id = UUID()
        var minute: Int
        var label: String { "e\(minute)" }
    }

    static func settings(_ directory: URL, _ model: Model, segmentSize: Int = 500, durability: LogDurability = .everySave,
                         allowsSave: Bool = true) -> LogStoreConfiguration {
        let timestamp = switch model {
        case .v1: LogTimestamp(\EventV1.at)
        case .v2: LogTimestamp(\EventV2.time)
        case .occurrence: LogTimestamp(\Occurrence.time)
        }
        return LogStoreConfiguration(directory: directory, timestamps: [timestamp], segmentSize: segmentSize, durability: durability,
                                     allowsSave: allowsSave)
    }

    /// A container over the log in `directory` with `model`'s version: opening it migrates.
    static func events(_ directory: URL, _ model: Model, segmentSize: Int = 500, durability: LogDurability = .everySave,
                       allowsSave: Bool = true, plan: (any SchemaMigrationPlan.Type)? = nil) throws -> ModelContainer {
        // With a plan, the versions' schemas, which carry their version.
        let schema = switch model {
        case .v1: plan == nil ? Schema([EventV1.self]) : Schema(versionedSchema: EventSchemaV1.self)
        case .v2: plan == nil ? Schema([EventV2.self]) : Schema(versionedSchema: EventSchemaV2.self)
        case .occurrence: Schema([Occurrence.self])
        }
        return try ModelContainer(for: schema, migrationPlan: plan, configurations: [
            settings(directory, model, segmentSize: segmentSize, durability: durability, allowsSave: allowsSave)])
    }

    static func log(_ container: ModelContainer) throws -> LogStore {
        try #require(container.stores.first as? LogStore)
    }

    /// Saves `events` as version 1, `perSave` to a save.
    static func save(_ events: [Event], perSave: Int, to container: ModelContainer) throws {
        let context = ModelContext(container)
        for start in stride(from: 0, to: events.count, by: perSave) {
            for event in events[start..<min(start + perSave, events.count)] {
                context.insert(EventV1(id: event.id, at: minute(event.minute), label: event.label))
            }
            try context.save()
        }
    }

    /// `events` as version 1 reads them, and as version 2 (old records get the defaults).
    static func v1Rows(_ events: [Event]) -> [String] {
        events.map { "\($0.id) \(minute($0.minute).timeIntervalSince1970) \($0.label)" }.sorted()
    }

    static func v2Rows(_ events: [Event]) -> [String] {
        events.map { "\($0.id) \(minute($0.minute).timeIntervalSince1970) \($0.label) 1 \(checkedDefault.timeIntervalSince1970)" }.sorted()
    }

    static func read(v1 container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<EventV1>()).map { "\($0.id) \($0.at.timeIntervalSince1970) \($0.label)" }.sorted()
    }

    static func read(v2 container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<EventV2>()).map {
            "\($0.id) \($0.time.timeIntervalSince1970) \($0.title) \($0.level) \($0.checked.timeIntervalSince1970)"
        }.sorted()
    }

    /// What the files hold: the old log (it opens as version 1) or the migrated one (version 1
    /// is refused as older than the data), read back.
    enum Found: Equatable {
        case old([String])
        case migrated([String])
    }

    static func found(_ directory: URL, durability: LogDurability = .everySave) throws -> Found {
        do {
            return .old(try read(v1: try events(directory, .v1, durability: durability)))
        } catch let error as DataStoreError where error.code == .incompatibleSchema {
            return .migrated(try read(v2: try events(directory, .v2, durability: durability)))
        }
    }

    static func seed(_ directory: URL, count: Int = 12, perSave: Int = 2) throws -> [Event] {
        let seeded = (0..<count).map { Event(minute: $0) }
        try save(seeded, perSave: perSave, to: try events(directory, .v1))
        return seeded
    }

    static func withoutTemporaryFiles(_ contents: [String: Data]) -> [String: Data] {
        contents.filter { !$0.key.contains(".tmp-") }
    }

    // MARK: Reading migrated records

    @Test func aMigrationRewritesOnlyTheIdentityFileAndReadsApplyIt() throws {
        let directory = try temporaryDirectory()
        let seeded = try Self.seed(directory)
        let before = try directoryContents(directory)
        let container = try Self.events(directory, .v2)
        let after = try directoryContents(directory)
        #expect(after.filter { $0.key != "store.json" } == before.filter { $0.key != "store.json" }, "no segment or index was rewritten")
        #expect(after["store.json"] != before["store.json"])
        #expect(try Self.read(v2: container) == Self.v2Rows(seeded))
        let reopened = try Self.events(directory, .v2)
        #expect(try Self.read(v2: reopened) == Self.v2Rows(seeded), "the identity file keeps the migration, defaults exactly")
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<EventV2>(predicate: #Predicate { $0.title == "e3" })).map(\.level) == [1],
                "a predicate on a renamed attribute")

        let added = Event(minute: 100)
        let context = ModelContext(reopened)
        context.insert(EventV2(id: added.id, time: minute(100), title: added.label))
        try context.save()
        #expect(try Self.read(v2: try Self.events(directory, .v2)) == Self.v2Rows(seeded + [added]))
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<EventV2>()) == seeded.count + 1)

        let store = try Self.log(reopened)
        #expect(store.recordedSchema?.version == nil)
        #expect(store.recordedSchema?.holds(Schema([EventV2.self])) == true)
        #expect(store.recordedSchema?.supersededFingerprints == [StoredSchema(Schema([EventV1.self])).fingerprint])
    }

    @Test func aNewLogRecordsItsSchemaAtCreation() throws {
        let directory = try temporaryDirectory()
        let store = try Self.log(try Self.events(directory, .v1))
        #expect(store.recordedSchema == StoredSchema(Schema([EventV1.self])))
        let meta = try #require(try LogMeta.read(LogFiles(directory: directory.path)))
        #expect(meta.version == 2 && meta.schema == StoredSchema(Schema([EventV1.self])) && meta.migrations == nil)
    }

    /// A log written before logs recorded their schema (format version 1): it reads as
    /// unrecorded, a plan migrates it from its first version, and without one its next save
    /// records the schema.
    @Test func aLogWrittenBeforeSchemasWereRecordedOpensAndMigrates() throws {
        func makeOld(_ directory: URL) throws -> [Event] {
            let seeded = try Self.seed(directory)
            let files = LogFiles(directory: directory.path)
            var meta = try #require(try LogMeta.read(files))
            meta.schema = nil
            try meta.write(files)
            #expect(try #require(try LogMeta.read(files)).version == 1)
            return seeded
        }

        let planned = try temporaryDirectory()
        let seeded = try makeOld(planned)
        #expect(try Self.log(try Self.events(planned, .v1)).recordedSchema == .unrecorded)
        let container = try Self.events(planned, .v2, plan: EventMigrationPlan.self)
        #expect(try Self.read(v2: container) == Self.v2Rows(seeded))
        #expect(try Self.log(container).recordedSchema?.version == Schema.Version(2, 0, 0))

        let unplanned = try temporaryDirectory()
        let old = try makeOld(unplanned)
        let v1 = try Self.events(unplanned, .v1)
        #expect(try Self.read(v1: v1) == Self.v1Rows(old))
        try Self.save([Event(minute: 50)], perSave: 1, to: v1)
        let meta = try #require(try LogMeta.read(LogFiles(directory: unplanned.path)))
        #expect(meta.version == 2 && meta.schema == StoredSchema(Schema([EventV1.self])), "the save recorded the schema")
        #expect(try Self.read(v2: try Self.events(unplanned, .v2)).count == old.count + 1, "and the log migrates from it")
    }

    /// The identity file's checksum covers the schema and the migrations: one changed character
    /// in either is damage, not another schema.
    @Test(arguments: [("\"valueType\":\"Date\"", "\"valueType\":\"Datf\""), ("\"throughTransaction\":6", "\"throughTransaction\":4")])
    func aDamagedSchemaOrMigrationInTheIdentityFileIsCaught(_ change: (String, String)) throws {
        let directory = try temporaryDirectory()
        _ = try Self.seed(directory)
        _ = try Self.events(directory, .v2)
        let file = directory.appending(path: "store.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        let range = try #require(text.range(of: change.0), "store.json holds \(change.0): \(text)")
        try text.replacingCharacters(in: range, with: change.1).write(to: file, atomically: false, encoding: .utf8)
        #expect { try Self.events(directory, .v2) } throws: { error in
            (error as? DataStoreError)?.code == .corruptStore && "\(error)".contains("store.json")
        }
    }

    /// (b) A record of a renamed entity keeps its identifier: an insert of it under the new name
    /// is refused, from a sealed segment (its Bloom filter) and from the segment being written
    /// (hashes in memory), by the instance that migrated and by a new one.
    @Test func anInsertUnderANewEntityNameOfAnOldRecordsIdIsRefused() throws {
        let directory = try temporaryDirectory()
        let settings = LogStoreConfiguration(directory: directory, segmentSize: 400)
        let old = try ModelContainer(for: Ping.self, configurations: settings)
        let pings = (0..<30).map { Ping(value: $0) }
        let ids = pings.map(\.id)
        let context = ModelContext(old)
        for (index, ping) in pings.enumerated() {
            context.insert(ping)
            if index % 3 == 2 { try context.save() }
        }
        #expect(try directoryContents(directory).keys.contains { $0.hasSuffix(".index") }, "some segments are sealed")

        let migrated = try ModelContainer(for: Signal.self, configurations: settings)
        #expect(try ModelContext(migrated).fetch(FetchDescriptor<Signal>()).map(\.value).sorted() == Array(0..<30))
        #expect(try ModelContext(migrated).fetchCount(FetchDescriptor<Signal>()) == 30)
        for container in [migrated, try ModelContainer(for: Signal.self, configurations: settings)] {
            for id in [ids[0], ids[29]] {
                let context = ModelContext(container)
                context.insert(Signal(id: id, value: -1))
                #expect { try context.save() } throws: { error in
                    (error as? DataStoreError)?.code == .unsupportedFeature && "\(error)".contains("already in the log")
                }
            }
            let fresh = ModelContext(container)
            fresh.insert(Signal(value: 100))
            try fresh.save()
        }
        #expect(try ModelContext(migrated).fetchCount(FetchDescriptor<Signal>()) == 32)
        #expect(try ModelContext(migrated).fetch(FetchDescriptor<Signal>(predicate: #Predicate { $0.value == -1 })).isEmpty)

        // History written before shows the inserts under the new name, in both history types.
        let store = try Self.log(migrated)
        let logInserts = try store.fetchHistory(HistoryDescriptor<LogTransaction>()).flatMap(\.changes).compactMap { change -> UUID? in
            if case .insert(let insert as LogInsert<Signal>) = change { insert.changedPersistentIdentifier.primaryKey.uuidValue } else { nil }
        }
        #expect(logInserts.count == 32 && Set(ids).isSubset(of: Set(logInserts)))
        let defaultInserts = try migrated.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).flatMap(\.changes).filter {
            if case .insert(_ as DefaultHistoryInsert<Signal>) = $0 { true } else { false }
        }
        #expect(defaultInserts.count == 32)
    }

    /// Counts without a predicate come from the segments' counts, except where a migration came
    /// in the middle of a segment: there, rows of the old and the new name share a segment.
    @Test func countsStayExactWhenAMigrationSplitsASegment() throws {
        let directory = try temporaryDirectory()
        let settings = LogStoreConfiguration(directory: directory, segmentSize: 1 << 20)
        let old = try ModelContainer(for: Ping.self, configurations: settings)
        let context = ModelContext(old)
        for value in 0..<5 { context.insert(Ping(value: value)) }
        try context.save()
        let migrated = try ModelContainer(for: Signal.self, configurations: settings)
        let newer = ModelContext(migrated)
        for value in 5..<8 { newer.insert(Signal(value: value)) }
        try newer.save()
        #expect(try ModelContext(migrated).fetchCount(FetchDescriptor<Signal>()) == 8)
        // A later version brings a new entity under the old name: its rows are not the old ones.
        let both = try ModelContainer(for: Signal.self, Ping.self, configurations: settings)
        let newest = ModelContext(both)
        newest.insert(Ping(value: 100))
        try newest.save()
        #expect(try segmentFiles(directory).count == 1, "one segment holds all")
        #expect(try ModelContext(both).fetchCount(FetchDescriptor<Signal>()) == 8)
        #expect(try ModelContext(both).fetchCount(FetchDescriptor<Ping>()) == 1, "a new entity under the old name")
        #expect(try ModelContext(both).fetch(FetchDescriptor<Ping>()).map(\.value) == [100])
    }

    /// (c) After the timestamp attribute (and, in the second case, the entity) is renamed, a
    /// range read returns exactly what a full read filtered by the range returns, and still
    /// skips the segments out of range.
    @Test(arguments: [Model.v2, .occurrence])
    func aRangeReadAfterARenameReturnsExactlyTheRowsInRange(_ model: Model) throws {
        let directory = try temporaryDirectory()
        let seeded = (0..<60).map { Event(minute: $0) }
        try Self.save(seeded, perSave: 3, to: try Self.events(directory, .v1))
        let container = try Self.events(directory, model)
        let context = ModelContext(container)
        for n in 60..<80 {
            switch model {
            case .occurrence: context.insert(Occurrence(id: UUID(), time: minute(n), title: "e\(n)"))
            default: context.insert(EventV2(id: UUID(), time: minute(n), title: "e\(n)"))
            }
            if n % 4 == 3 { try context.save() }
        }
        let segments = try segmentFiles(directory).count
        #expect(segments > 10, "the test needs many segments, has \(segments)")

        func all() throws -> [(title: String, time: Date)] {
            switch model {
            case .occurrence: try ModelContext(container).fetch(FetchDescriptor<Occurrence>()).map { ($0.title, $0.time) }
            default: try ModelContext(container).fetch(FetchDescriptor<EventV2>()).map { ($0.title, $0.time) }
            }
        }
        func inRange(_ from: Date, _ to: Date) throws -> [String] {
            switch model {
            case .occurrence:
                try ModelContext(container).fetch(FetchDescriptor<Occurrence>(predicate: #Predicate { $0.time >= from && $0.time <= to })).map(\.title)
            default:
                try ModelContext(container).fetch(FetchDescriptor<EventV2>(predicate: #Predicate { $0.time >= from && $0.time <= to })).map(\.title)
            }
        }
        let everything = try all()
        #expect(everything.count == 80)
        for (from, to) in [(10, 20), (0, 2), (57, 63), (70, 79), (-5, 200), (90, 95)] {
            let expected = everything.filter { $0.time >= minute(from) && $0.time <= minute(to) }.map(\.title).sorted()
            #expect(try inRange(minute(from), minute(to)).sorted() == expected, "minutes \(from)...\(to)")
        }
        let store = try Self.log(container)
        store.resetStatistics()
        _ = try inRange(minute(10), minute(14))
        #expect(store.statistics.segmentsRead < segments / 2,
                "a range read skips segments by their times after the rename: \(store.statistics.segmentsRead) of \(segments) read")
    }

    /// Migrations of records that retention, `deleteHistory` or `erase` dropped leave the
    /// identity file with them.
    @Test func erasingDropsTheMigrationsOfTheErasedRecords() throws {
        let directory = try temporaryDirectory()
        _ = try Self.seed(directory)
        let container = try Self.events(directory, .v2)
        let files = LogFiles(directory: directory.path)
        #expect(try LogMeta.read(files)?.migrations?.count == 1)
        try container.erase()
        #expect(try LogMeta.read(files)?.migrations == nil)
        let added = Event(minute: 7)
        let context = ModelContext(container)
        context.insert(EventV2(id: added.id, time: minute(7), title: added.label))
        try context.save()
        #expect(try Self.read(v2: try Self.events(directory, .v2)) == Self.v2Rows([added]))
    }

    /// (e) The negative control: with the migration taken out of the identity file (the schema
    /// left migrated), the old records read under their old names, and the models cannot read
    /// them: the read-time migration is what makes the renamed attributes readable.
    @Test func withoutTheRecordedMigrationTheRenamedAttributesAreUnreadable() throws {
        let directory = try temporaryDirectory()
        let seeded = try Self.seed(directory)
        #expect(try Self.read(v2: try Self.events(directory, .v2)) == Self.v2Rows(seeded))

        let files = LogFiles(directory: directory.path)
        var meta = try #require(try LogMeta.read(files))
        #expect(meta.migrations?.count == 1)
        meta.migrations = nil
        try meta.write(files)

        let store = try LogStore(LogStoreConfiguration(directory: directory, schema: Schema([EventV2.self])))
        let snapshots = try store.fetch(DataStoreFetchRequest<EventV2>(descriptor: FetchDescriptor<EventV2>())).fetchedSnapshots
        #expect(snapshots.count == seeded.count)
        #expect(snapshots.allSatisfy { $0.values["title"] == nil && $0.values["label"] != nil && $0.values["level"] == nil })
        #expect(throws: (any Error).self) { try Self.read(v2: try Self.events(directory, .v2)) }
    }

    // MARK: Another instance with the old schema

    /// (d) An instance that opened the log with the old schema gets `.incompatibleSchema` from
    /// every read and write once another migrated it, and writes nothing.
    @Test func anInstanceWithTheOldSchemaIsRefusedAfterAnotherMigratesAndWritesNothing() throws {
        let directory = try temporaryDirectory()
        let seeded = try Self.seed(directory)
        let old = try Self.events(directory, .v1)
        #expect(try Self.read(v1: old) == Self.v1Rows(seeded))
        let oldStore = try Self.log(old)

        let migrated = try Self.events(directory, .v2)
        let files = try tree(directory)
        func refused(_ what: String, _ body: () throws -> Void) {
            #expect(throws: (any Error).self, "\(what)") {
                do {
                    try body()
                } catch let error as DataStoreError {
                    #expect(error.code == .incompatibleSchema, "\(what): \(error)")
                    #expect(error.message.contains("ModelContainer") && error.message.contains("Nothing was read or written"), "\(what): \(error)")
                    throw error
                }
            }
        }
        refused("fetch") { _ = try ModelContext(old).fetch(FetchDescriptor<EventV1>()) }
        refused("count") { _ = try ModelContext(old).fetchCount(FetchDescriptor<EventV1>()) }
        refused("save") {
            let context = ModelContext(old)
            context.insert(EventV1(id: UUID(), at: minute(500), label: "late"))
            try context.save()
        }
        refused("history") { _ = try oldStore.fetchHistory(HistoryDescriptor<LogTransaction>()) }
        refused("default history") { _ = try old.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) }
        refused("erase") { try oldStore.erase() }
        #expect(try tree(directory) == files, "the refused instance wrote nothing")
        #expect(oldStore.recordedSchema?.holds(Schema([EventV2.self])) == true, "it read the migrated identity file")

        // A new container with the old schema is refused as older than the data.
        #expect { try Self.events(directory, .v1) } throws: { ($0 as? DataStoreError)?.code == .incompatibleSchema }
        #expect(try Self.read(v2: migrated) == Self.v2Rows(seeded))
    }

    @Test func aReadOnlyLogThatNeedsMigratingIsRefusedAndUnchanged() throws {
        let directory = try temporaryDirectory()
        _ = try Self.seed(directory)
        let files = try tree(directory)
        #expect { try Self.events(directory, .v2, allowsSave: false) } throws: { ($0 as? DataStoreError)?.code == .readOnly }
        #expect(try tree(directory) == files)
    }

    // MARK: Crash safety

    /// (a) Each I/O step of a migration (flushing the segment being written, then replacing the
    /// identity file: create, write, flush, rename, flush the directory) fails in turn, a write
    /// after a few bytes on every third step: the log then reads exactly as before, as version 1,
    /// with its files unchanged, or exactly as migrated; and it migrates when opened again.
    @Test func aFaultAtEveryStepOfAMigrationLeavesTheOldLogOrTheMigratedOne() throws {
        var steps = 0
        var outcomes: [String: Int] = [:]
        for step in 1...30 {
            let directory = try temporaryDirectory()
            let seeded = try Self.seed(directory)
            let before = try directoryContents(directory)
            let (opened, operations) = withFault(atStep: step, under: directory, shortWrite: 7) { () -> Bool in
                do {
                    _ = try Self.events(directory, .v2)
                    return true
                } catch {
                    #expect((error as? DataStoreError)?.code == .ioFailure, "step \(step): \(error)")
                    return false
                }
            }
            guard operations >= step else { break }
            steps = step
            #expect(!opened, "step \(step): the fault failed the migration")
            switch try Self.found(directory) {
            case .old(let rows):
                outcomes["old", default: 0] += 1
                #expect(rows == Self.v1Rows(seeded), "step \(step): the old log")
                #expect(Self.withoutTemporaryFiles(try directoryContents(directory)) == before, "step \(step): files as before")
            case .migrated(let rows):
                outcomes["migrated", default: 0] += 1
                #expect(rows == Self.v2Rows(seeded), "step \(step): the migrated log")
            }
            #expect(try Self.read(v2: try Self.events(directory, .v2)) == Self.v2Rows(seeded), "step \(step): migrated when opened again")
        }
        print("LogStore migration faults: \(steps) steps, outcomes \(outcomes)")
        #expect(steps >= 6, "a migration has \(steps) write steps")
        #expect(outcomes["old", default: 0] > 0 && outcomes["migrated", default: 0] > 0, "\(outcomes)")
    }

    /// (a) The power goes at each file operation of three saves and the migration that follows
    /// (every operation, three rewinds each: none, some or all of what was not flushed lost);
    /// the log comes back as the old one, holding its acknowledged saves (with `.periodic`, those
    /// a flush covered, and any later ones without a gap), or as the migrated one, holding every
    /// save the migration covered: it flushes them before it commits.
    @Test(arguments: ["everySave", "periodic"])
    func aPowerLossAtEveryOperationOfAMigrationLeavesTheOldLogOrTheMigratedOne(_ durabilityName: String) throws {
        let durability: LogDurability = durabilityName == "periodic" ? .periodic(3_600) : .everySave
        var outcomes: [String: Int] = [:]
        var failures: [String] = []
        var crashAt = 1
        var lastCrashed = true
        while lastCrashed, crashAt < 200 {
            for (round, loss) in [0.0, 0.5, 1.0].enumerated() {
                let directory = try temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: directory) }
                let seeded = try Self.seed(directory, count: 6)
                let simulator = PowerLossSimulator(directory: directory, crashAt: crashAt, sabotage: .none)
                simulator.start()
                let later = (100..<106).map { Event(minute: $0) }
                var acknowledged = 0   // saves of `later`, two events each
                var migrated = false
                do {
                    let container = try Self.events(directory, .v1, durability: durability)
                    for save in 0..<3 {
                        try Self.save(Array(later[(save * 2)..<(save * 2 + 2)]), perSave: 2, to: container)
                        acknowledged += 1
                    }
                    _ = try Self.events(directory, .v2, durability: durability)
                    migrated = true
                } catch {}
                lastCrashed = simulator.hasCrashed
                var generator = SeededGenerator(seed: UInt64(crashAt * 3 + round))
                let report = simulator.powerLoss(using: &generator, lossProbability: loss, garbles: round == 1)
                let context = "crash at \(crashAt) (\(simulator.crashEvent ?? "none")), loss \(loss), \(acknowledged) saves acknowledged, "
                    + "migrated \(migrated): \(report)"
                // With `.everySave` every acknowledged save is on disk (and the one in flight may
                // be); with `.periodic`, the first save of an instance is flushed, later ones may go.
                let least = durability == .everySave ? acknowledged : min(acknowledged, 1)
                let most = min(3, acknowledged + 1)
                do {
                    switch try Self.found(directory, durability: durability) {
                    case .old(let rows):
                        outcomes["old", default: 0] += 1
                        if migrated { failures.append("\(context): the acknowledged migration was lost") }
                        if !(least...most).contains(where: { rows == Self.v1Rows(seeded + later.prefix($0 * 2)) }) {
                            failures.append("\(context): the old log holds \(rows.count - seeded.count) later events")
                        }
                    case .migrated(let rows):
                        outcomes["migrated", default: 0] += 1
                        if rows != Self.v2Rows(seeded + later) {
                            failures.append("\(context): the migrated log holds \(rows.count - seeded.count) of the 6 later events")
                        }
                    }
                } catch {
                    failures.append("\(context): \(error)")
                }
            }
            crashAt += 1
        }
        print("LogStore migration power loss (\(durabilityName)): \(crashAt - 1) crash points × 3 rewinds, outcomes \(outcomes)")
        #expect(failures.isEmpty, "\(failures.count) failures: \(failures.prefix(5))")
        #expect(outcomes["old", default: 0] > 0 && outcomes["migrated", default: 0] > 0, "\(outcomes)")
    }
}

extension SnapshotValue {
    fileprivate var uuidValue: UUID? {
        if case .uuid(let value) = self { value } else { nil }
    }
}
