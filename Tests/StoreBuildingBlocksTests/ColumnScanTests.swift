import DataStores
import Foundation
import StoreProtocol
import StoreBuildingBlocks
import StoreTestSupport
import Testing

/// The table's columns of query attributes stay in step with its rows through every way a table
/// changes (inserts, replacements, upserts, deletes and their compaction, a failed save's undo,
/// `removeAll`), and a fetch decided on them (`selectedSnapshots(for:)`, `selectedCount(for:)`)
/// answers exactly as `QueryEvaluator` does over every row: on random rows with NaN, `nil`,
/// integers above `Int64.max` and negative zero, for random predicates, sorts and pages.
@Suite struct ColumnScanTests {
    @Model final class Reading {
        @Attribute(.unique) var label: String
        var count: Int
        var score: Double
        var when: Date
        var note: String?
        var big: UInt64
        var flag: Bool
        init(label: String, count: Int, score: Double, when: Date, note: String?, big: UInt64, flag: Bool) {
            self.label = label
            self.count = count
            self.score = score
            self.when = when
            self.note = note
            self.big = big
            self.flag = flag
        }
    }

    /// A deterministic generator (StoreTestSupport's SplitMix64), so that a failure repeats.
    typealias Generator = SeededGenerator

    static let labels = (0..<40).map { "l\($0)" } + ["é", "e\u{301}", "", "Z"]
    static let scores: [Double] = [-1, 0, -0.0, 0.5, 1, 2.5, .nan, .infinity, -.infinity, 100]
    static let bigs: [UInt64] = [0, 1, 7, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]

    func values(_ id: UUID, _ random: inout Generator, label: String? = nil) -> [String: SnapshotValue] {
        var values: [String: SnapshotValue] = [
            "id": .uuid(id),
            "label": .string(label ?? Self.labels.randomElement(using: &random)!),
            "count": .int(Int64.random(in: -3...12, using: &random)),
            "score": .double(Self.scores.randomElement(using: &random)!),
            "when": .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...9, using: &random)) * 1000)),
            "big": SnapshotValue.canonical(Self.bigs.randomElement(using: &random)!),
            "flag": .bool(Bool.random(using: &random)),
        ]
        if Bool.random(using: &random) { values["note"] = .string(Self.labels.randomElement(using: &random)!) }
        else if Bool.random(using: &random) { values["note"] = .null }
        return values
    }

    func snapshot(_ values: [String: SnapshotValue]) -> DefaultSnapshot {
        DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Reading.entityName, primaryKey: values["id"]!), values: values)
    }

    /// Random descriptors: typed comparisons, `&&`, `||`, optionals, strings, dates, integers
    /// above `Int64.max`, with and without sorts, limits and offsets.
    func descriptor(_ random: inout Generator) -> FetchDescriptor<Reading> {
        let count = Int.random(in: -2...13, using: &random)
        let score = Self.scores.randomElement(using: &random)!
        let label = Self.labels.randomElement(using: &random)!
        let when = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...9, using: &random)) * 1000)
        let big = Self.bigs.randomElement(using: &random)!
        let predicates: [Predicate<Reading>?] = [
            nil,
            #Predicate { $0.count >= count },
            #Predicate { $0.count != count },
            #Predicate { $0.score < score && $0.label != label },
            #Predicate { $0.score == score },
            #Predicate { $0.score >= score },
            #Predicate { $0.count == count || $0.note == nil },
            #Predicate { $0.when > when && $0.count < count },
            #Predicate { $0.when <= when },
            #Predicate { $0.big > big },
            #Predicate { $0.big == big },
            #Predicate { $0.note == label },
            #Predicate { $0.label < label },
            #Predicate { $0.label == label && $0.flag },
            #Predicate { !$0.flag && $0.label.contains("1") },
            #Predicate { ($0.note ?? "") > label },
            #Predicate { [label, "l1", "é"].contains($0.label) },
        ]
        var descriptor = FetchDescriptor<Reading>(predicate: predicates.randomElement(using: &random)!)
        let sorts: [[SortDescriptor<Reading>]] = [
            [], [SortDescriptor(\.score, order: .reverse)], [SortDescriptor(\.count), SortDescriptor(\.label)],
            [SortDescriptor(\.when, order: .reverse), SortDescriptor(\.score)], [SortDescriptor(\.big)], [SortDescriptor(\.label)],
            [SortDescriptor(\.when, order: .reverse)], [SortDescriptor(\.count)], [SortDescriptor(\.count, order: .reverse)],
        ]
        descriptor.sortBy = sorts.randomElement(using: &random)!
        if Bool.random(using: &random) { descriptor.fetchLimit = Int.random(in: 0...15, using: &random) }
        if Int.random(in: 0..<4, using: &random) == 0 { descriptor.fetchOffset = Int.random(in: 0...5, using: &random) }
        return descriptor
    }

    /// Checks random requests on the table against `QueryEvaluator` over every row; returns how
    /// many the columns decided.
    @discardableResult
    func expectColumnsAgree(_ table: SnapshotTable, _ random: inout Generator, requests: Int = 40,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let rows = table.snapshots(of: Reading.entityName)
        var decided = 0
        for _ in 0..<requests {
            let request = DataStoreFetchRequest(descriptor: descriptor(&random))
            let expected = try QueryEvaluator.fetch(request, over: rows).map(\.persistentIdentifier)
            if let selected = table.selectedSnapshots(for: request) {
                decided += 1
                #expect(selected.map(\.persistentIdentifier) == expected, "\(request.query)", sourceLocation: sourceLocation)
                #expect(selected == selected.map { table.snapshot(for: $0.persistentIdentifier) }, sourceLocation: sourceLocation)
            }
            if let count = table.selectedCount(for: request) {
                #expect(count == (try QueryEvaluator.count(request, over: rows)), "\(request.query)", sourceLocation: sourceLocation)
            }
        }
        return decided
    }

    @Test func columnsStayInStepThroughEveryChange() throws {
        var random = Generator(seed: 30)
        var table = SnapshotTable(schema: Schema([Reading.self]))
        var ids: [UUID] = []
        var decided = 0
        for round in 0..<30 {
            // Inserts (an insert of a stored label updates that row), replacements, deletes.
            var inserted: [DefaultSnapshot] = [], updated: [DefaultSnapshot] = [], deleted: [DefaultSnapshot] = []
            for _ in 0..<Int.random(in: 5...60, using: &random) {
                let id = UUID()
                ids.append(id)
                inserted.append(snapshot(values(id, &random, label: "r\(round)-\(ids.count)")))
            }
            for id in ids.shuffled(using: &random).prefix(Int.random(in: 0...20, using: &random)) {
                guard let stored = table.snapshot(for: PersistentIdentifier(entityName: Reading.entityName, primaryKey: .uuid(id))) else { continue }
                updated.append(snapshot(values(id, &random, label: stored.values["label"]?.stringValue)))
            }
            let deletions = round % 7 == 6 ? ids.count * 3 / 4 : Int.random(in: 0...10, using: &random)
            for id in ids.shuffled(using: &random).prefix(deletions) {
                deleted.append(snapshot(["id": .uuid(id)]))
            }
            let updatedIDs = Set(updated.map(\.persistentIdentifier))
            deleted.removeAll { updatedIDs.contains($0.persistentIdentifier) }
            _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: inserted, updated: updated, deleted: deleted),
                                storeIdentifier: "S")
            decided += try expectColumnsAgree(table, &random)

            // A save that fails after deletes and replacements: its undo restores every row in place.
            let live = table.snapshots(of: Reading.entityName)
            if live.count >= 3 {
                var clash = live[2].values
                clash["label"] = live[1].values["label"]
                let failing = DataStoreSaveChangesRequest(
                    editingState: EditingState(), updated: [snapshot(values(live[1].values["id"]!.uuidValue!, &random, label: live[1].values["label"]?.stringValue)),
                                                            snapshot(clash)],
                    deleted: [live[0]])
                #expect(throws: DataStoreError.self) { _ = try table.apply(failing, storeIdentifier: "S") }
                #expect(table.snapshots(of: Reading.entityName) == live)
                decided += try expectColumnsAgree(table, &random, requests: 10)
            }
            // Rewritten rows (a replayed journal) and removed ones.
            if let first = live.first {
                try table.write(snapshot(values(first.values["id"]!.uuidValue!, &random, label: first.values["label"]?.stringValue)))
            }
            if let last = live.last { table.remove(last.persistentIdentifier) }
        }
        table.removeAll()
        decided += try expectColumnsAgree(table, &random, requests: 10)
        ids.removeAll()
        let refill = (0..<100).map { index -> DefaultSnapshot in snapshot(values(UUID(), &random, label: "refill-\(index)")) }
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: refill), storeIdentifier: "S")
        decided += try expectColumnsAgree(table, &random)
        #expect(decided > 800, "the columns decide most requests (the others need models or an index walk)")
    }

    @Test func aLimitedSortAndAFilterAreDecidedOnTheColumns() throws {
        var random = Generator(seed: 32)
        var table = SnapshotTable(schema: Schema([Reading.self]))
        let rows = (0..<300).map { index in snapshot(values(UUID(), &random, label: "s\(index)")) }
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: rows), storeIdentifier: "S")
        var latest = FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.when, order: .reverse)])
        latest.fetchLimit = 10
        let request = DataStoreFetchRequest(descriptor: latest)
        #expect(table.selectedSnapshots(for: request)?.map(\.persistentIdentifier)
                == (try QueryEvaluator.fetch(request, over: table.snapshots(of: Reading.entityName))).map(\.persistentIdentifier))
        let counted = DataStoreFetchRequest(descriptor: FetchDescriptor<Reading>(predicate: #Predicate { $0.count >= 5 }))
        #expect(table.selectedCount(for: counted) == (try QueryEvaluator.count(counted, over: table.snapshots(of: Reading.entityName))))
    }

    @Test func rowsTheStoredValuesCannotDecideLeaveTheRequestToTheEvaluator() throws {
        var random = Generator(seed: 31)
        var table = SnapshotTable(schema: Schema([Reading.self]))
        var rows = (0..<10).map { index in snapshot(values(UUID(), &random, label: "u\(index)")) }
        rows[4].values["count"] = .string("four")   // a value that does not read as an Int
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: rows), storeIdentifier: "S")
        let count = DataStoreFetchRequest(descriptor: FetchDescriptor<Reading>(predicate: #Predicate { $0.count > 100 }))
        #expect(table.selectedSnapshots(for: count) == nil)
        #expect(table.selectedCount(for: count) == nil)
        let other = DataStoreFetchRequest(descriptor: FetchDescriptor<Reading>(predicate: #Predicate { $0.score > 100 }))
        #expect(table.selectedCount(for: other) == (try QueryEvaluator.count(other, over: table.snapshots(of: Reading.entityName))),
                "an attribute every row reads is still decided on the columns")
        var sortedByCount = FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.count)])
        sortedByCount.fetchLimit = 3
        #expect(table.selectedSnapshots(for: DataStoreFetchRequest(descriptor: sortedByCount)) == nil)
    }
}

private extension SnapshotValue {
    static func canonical(_ value: UInt64) -> SnapshotValue {
        Int64(exactly: value).map(SnapshotValue.int) ?? .unsigned(value)
    }

    var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    var uuidValue: UUID? { if case .uuid(let value) = self { value } else { nil } }
}
