import DataStores
import Foundation
import StoreProtocol
@testable import StoreBuildingBlocks
import StoreTestSupport
import Testing

/// A fetch whose whole filter is `attribute == constant` on `id` or an indexed attribute, with no
/// sort or page, is answered by `EntityRows.equalityLookup(_:)` without planning a scan; its rows
/// must be those `QueryEvaluator` selects over every row (the reference), in the same order: on
/// duplicates, `nil`, NaN and negative zero, unicode strings, ids that are not stored, after
/// updates and deletes, and beside rows whose stored value does not read as its type.
@Suite struct EqualityLookupTests {
    @Model final class Part {
        #Index<Part>([\.code], [\.name], [\.weight])
        var id: UUID
        var code: Int
        var name: String?
        var weight: Double
        var plain: Int
        init(id: UUID, code: Int, name: String?, weight: Double, plain: Int) {
            self.id = id
            self.code = code
            self.name = name
            self.weight = weight
            self.plain = plain
        }
    }

    static let names: [String?] = ["a", "é", "e\u{301}", "", nil, "Z", "a "]
    static let weights: [Double] = [0, -0.0, 1.5, .nan, .infinity, -2]

    func row(_ id: UUID, _ random: inout SeededGenerator) -> DefaultSnapshot {
        let name = Self.names.randomElement(using: &random)!
        let values: [String: SnapshotValue] = [
            "id": .uuid(id),
            "code": .int(Int64.random(in: 0...9, using: &random)),
            "name": name.map(SnapshotValue.string) ?? .null,
            "weight": .double(Self.weights.randomElement(using: &random)!),
            "plain": .int(Int64.random(in: 0...3, using: &random)),
        ]
        return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Part.entityName, primaryKey: .uuid(id)), values: values)
    }

    /// Every single-equality request this suite asks, for the stored ids and some that are not.
    func requests(ids: [UUID], _ random: inout SeededGenerator) -> [DataStoreFetchRequest<Part>] {
        var predicates: [Predicate<Part>] = []
        for id in ids.shuffled(using: &random).prefix(20) + [UUID(), UUID()] {
            predicates.append(#Predicate { $0.id == id })
            predicates.append(#Predicate { id == $0.id })
        }
        for code in -1...10 {
            predicates.append(#Predicate { $0.code == code })
            predicates.append(#Predicate { code == $0.code })
        }
        for name in Self.names + ["b"] { predicates.append(#Predicate { $0.name == name }) }
        for weight in Self.weights + [7] { predicates.append(#Predicate { $0.weight == weight }) }
        for plain in 0...4 { predicates.append(#Predicate { $0.plain == plain }) }   // no index: the general path
        return predicates.map { DataStoreFetchRequest(descriptor: FetchDescriptor(predicate: $0)) }
    }

    /// Checks each request's answer from the table (and from the lookup alone, when it answers)
    /// against the evaluator over every row; returns how many the lookup answered.
    @discardableResult
    func expectAgreement(_ table: SnapshotTable, ids: [UUID], _ random: inout SeededGenerator,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let rows = table.snapshots(of: Part.entityName)
        var answered = 0
        for request in requests(ids: ids, &random) {
            let expected = try QueryEvaluator.fetch(request, over: rows).map(\.persistentIdentifier)
            if let found = table.entities[Part.entityName]?.equalityLookup(request.query) {
                answered += 1
                #expect(found.map(\.persistentIdentifier) == expected, "\(request.query)", sourceLocation: sourceLocation)
                #expect(found == found.map { table.snapshot(for: $0.persistentIdentifier) }, sourceLocation: sourceLocation)
            }
            if let selected = table.selectedSnapshots(for: request) {
                #expect(selected.map(\.persistentIdentifier) == expected, "\(request.query)", sourceLocation: sourceLocation)
            }
            // What a store answers (MemoryStore and JSONStore: `SnapshotTableStore.fetch`).
            let candidates = table.candidates(for: request)
            #expect(try QueryEvaluator.fetch(request, over: candidates).map(\.persistentIdentifier) == expected,
                    "\(request.query)", sourceLocation: sourceLocation)
        }
        return answered
    }

    @Test func theLookupAnswersAsTheEvaluatorDoes() throws {
        var random = SeededGenerator(seed: 3001)
        var table = SnapshotTable(schema: Schema([Part.self]))
        var ids: [UUID] = []
        var answered = 0
        for round in 0..<8 {
            var inserted: [DefaultSnapshot] = [], updated: [DefaultSnapshot] = [], deleted: [DefaultSnapshot] = []
            for _ in 0..<Int.random(in: 10...60, using: &random) {
                let id = UUID()
                ids.append(id)
                inserted.append(row(id, &random))
            }
            let stored = ids.filter { table.snapshot(for: PersistentIdentifier(entityName: Part.entityName, primaryKey: .uuid($0))) != nil }
            for id in stored.shuffled(using: &random).prefix(10) { updated.append(row(id, &random)) }
            let updatedIDs = Set(updated.map(\.persistentIdentifier))
            // Every fourth round deletes most rows, which compacts the slots.
            for id in stored.shuffled(using: &random).prefix(round % 4 == 3 ? stored.count * 3 / 4 : 5)
            where !updatedIDs.contains(PersistentIdentifier(entityName: Part.entityName, primaryKey: .uuid(id))) {
                deleted.append(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Part.entityName, primaryKey: .uuid(id)),
                                               values: ["id": .uuid(id)]))
            }
            _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: inserted, updated: updated, deleted: deleted),
                                storeIdentifier: "S")
            answered += try expectAgreement(table, ids: ids, &random)
        }
        // The ids, codes, names and weights: all but `plain` (no index) and the lookups of more
        // than half the rows (none here: ten codes, seven names, six weights).
        #expect(answered > 8 * 60)
    }

    @Test func pagesSortsAndOtherOperandsAreLeftToTheGeneralPath() throws {
        var random = SeededGenerator(seed: 3002)
        var table = SnapshotTable(schema: Schema([Part.self]))
        let ids = (0..<40).map { _ in UUID() }
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: ids.map { row($0, &random) }),
                            storeIdentifier: "S")
        let rows = table.snapshots(of: Part.entityName)
        let code = 3
        var descriptors: [FetchDescriptor<Part>] = []
        var offset = FetchDescriptor<Part>(predicate: #Predicate { $0.code == code })
        offset.fetchOffset = 1
        descriptors.append(offset)
        var limit = FetchDescriptor<Part>(predicate: #Predicate { $0.code == code })
        limit.fetchLimit = 1
        descriptors.append(limit)
        descriptors.append(FetchDescriptor(predicate: #Predicate { $0.code == code }, sortBy: [SortDescriptor(\.weight, order: .reverse)]))
        descriptors.append(FetchDescriptor(predicate: #Predicate { $0.code == code && $0.plain == 1 }))
        descriptors.append(FetchDescriptor(predicate: #Predicate { $0.code != code }))
        for descriptor in descriptors {
            let request = DataStoreFetchRequest(descriptor: descriptor)
            #expect(table.entities[Part.entityName]?.equalityLookup(request.query) == nil, "\(request.query)")
            let expected = try QueryEvaluator.fetch(request, over: rows).map(\.persistentIdentifier)
            #expect(table.selectedSnapshots(for: request)?.map(\.persistentIdentifier) == expected, "\(request.query)")
        }
    }

    @Test func rowsTheStoredValuesCannotDecideLeaveTheRequestToTheEvaluator() throws {
        var random = SeededGenerator(seed: 3003)
        var table = SnapshotTable(schema: Schema([Part.self]))
        let ids = (0..<30).map { _ in UUID() }
        var rows = ids.map { row($0, &random) }
        rows[4].values["code"] = .string("four")   // does not read as an Int: in the index's unreadable rows
        rows[9].values["name"] = .int(9)
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: rows), storeIdentifier: "S")
        let code = 2
        let request = DataStoreFetchRequest(descriptor: FetchDescriptor<Part>(predicate: #Predicate { $0.code == code }))
        #expect(table.entities[Part.entityName]?.equalityLookup(request.query) == nil)
        #expect(table.selectedSnapshots(for: request) == nil)
        // The other requests still agree with the evaluator wherever the lookup answers.
        let stored = table.snapshots(of: Part.entityName)
        for request in requests(ids: ids, &random) {
            guard let found = table.entities[Part.entityName]?.equalityLookup(request.query) else { continue }
            guard let expected = try? QueryEvaluator.fetch(request, over: stored) else { continue }
            #expect(found.map(\.persistentIdentifier) == expected.map(\.persistentIdentifier), "\(request.query)")
        }
    }
}
