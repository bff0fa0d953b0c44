import DataStores
import Foundation
import StoreProtocol
@testable import StoreBuildingBlocks
import StoreTestSupport
import Testing

/// The ordered indexes: the chunked sorted array under them, range lookups, and walks in sort
/// order, each against the same answer computed without an index.
@Suite struct OrderedIndexTests {
    struct Pair: Comparable, Sendable {
        var value: Int
        var sequence: Int
        static func < (a: Pair, b: Pair) -> Bool { (a.value, a.sequence) < (b.value, b.sequence) }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func sortedChunksMatchASortedArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var chunks = SortedChunks<Pair>()
        var reference: [Pair] = []
        var sequence = 0
        // Enough elements to split and empty many chunks; runs of ascending inserts take the
        // append path, random ones the middle.
        for step in 0..<6_000 {
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 3, !reference.isEmpty {
                let victim = reference.remove(at: Int.random(in: 0..<reference.count, using: &random))
                let removed = chunks.remove(victim)
                #expect(removed)
            } else {
                sequence += 1
                let value = step < 2_000 ? step : Int.random(in: 0..<500, using: &random)
                let pair = Pair(value: value, sequence: sequence)
                chunks.insert(pair)
                reference.insert(pair, at: reference.firstIndex { pair < $0 } ?? reference.endIndex)
            }
        }
        let removedAbsent = chunks.remove(Pair(value: -1, sequence: 0))
        #expect(!removedAbsent)
        #expect(chunks.count == reference.count)
        var forward: [Pair] = []
        chunks.walkForward { forward.append($0); return true }
        #expect(forward == reference)
        var backward: [Pair] = []
        chunks.walkBackward { backward.append($0); return true }
        #expect(backward == reference.reversed())
        for start in [-1, 0, 7, 250, 499, 1_000, 1_999, 5_000] {
            var found: [Pair] = []
            chunks.walkForward(from: { $0.value < start }) { found.append($0); return found.count < 300 }
            #expect(found == Array(reference.filter { $0.value >= start }.prefix(300)), "from \(start)")
        }
    }

    @Model final class Reading {
        #Index<Reading>([\.level], [\.station], [\.count], [\.note])
        var level: Double
        var station: String
        var count: Int
        var note: String?
        init(level: Double, station: String, count: Int, note: String?) {
            self.level = level
            self.station = station
            self.count = count
            self.note = note
        }
    }

    /// A table with the values an index must not get wrong: ties, `-0.0` beside `0.0`, NaN,
    /// precomposed and decomposed strings, `nil`, integers near `Int64.max`, rows deleted and updated.
    func table(_ random: inout SeededGenerator, rows: Int = 800) throws -> SnapshotTable {
        var table = SnapshotTable(schema: Schema([Reading.self]))
        let stations = ["caf\u{E9}", "cafe\u{301}", "Zürich", "apple", "Apple", "b", ""]
        var snapshots: [DefaultSnapshot] = []
        for number in 0..<rows {
            let key = SnapshotValue.uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!)
            var level: SnapshotValue = .double(Double(Int.random(in: -20...20, using: &random)) / 4)
            switch number % 97 {
            case 0: level = .double(-0.0)
            case 1: level = .double(0)
            case 2 where number > 400: level = .double(.nan)
            default: break
            }
            let values: [String: SnapshotValue] = [
                "id": key, "level": level,
                "station": .string(stations[Int.random(in: 0..<stations.count, using: &random)]),
                "count": number % 50 == 0 ? .int(Int64.max - Int64(number)) : .int(Int64.random(in: -30...30, using: &random)),
                "note": number % 3 == 0 ? .null : .string("n\(number % 11)"),
            ]
            snapshots.append(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Reading.entityName, primaryKey: key),
                                             values: values))
        }
        let request = DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots, updated: [], deleted: [])
        _ = try table.apply(request, storeIdentifier: "S")
        // Delete a quarter and change some values, so that the indexes have had removals.
        var deleted: [DefaultSnapshot] = [], updated: [DefaultSnapshot] = []
        for snapshot in snapshots where Int.random(in: 0..<4, using: &random) == 0 { deleted.append(snapshot) }
        for snapshot in snapshots.prefix(200) where !deleted.contains(snapshot) && Int.random(in: 0..<3, using: &random) == 0 {
            var values = snapshot.values
            values["level"] = .double(Double(Int.random(in: -20...20, using: &random)) / 4)
            values["station"] = .string(stations[Int.random(in: 0..<stations.count, using: &random)])
            updated.append(DefaultSnapshot(persistentIdentifier: snapshot.persistentIdentifier, values: values))
        }
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: updated, deleted: deleted),
                            storeIdentifier: "S")
        return table
    }

    /// The request through the table's candidates gives what the models give over every row,
    /// and `expectNarrowed` says whether an index must have left rows out.
    func expectAgrees(_ table: SnapshotTable, _ descriptor: FetchDescriptor<Reading>, narrowed expectNarrowed: Bool?,
                      _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let request = DataStoreFetchRequest(descriptor: descriptor)
        let all = table.snapshots(of: Reading.entityName)
        let candidates = table.candidates(for: request)
        let expected = try SnapshotQuery.evaluate(descriptor, over: all).map(\.persistentIdentifier)
        let found = try QueryEvaluator.fetch(request, over: candidates).map(\.persistentIdentifier)
        #expect(found == expected, "\(comment)", sourceLocation: sourceLocation)
        if let expectNarrowed {
            #expect((candidates.count < all.count) == expectNarrowed,
                    "\(comment): \(candidates.count) candidates of \(all.count)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [11, 22, 33] as [UInt64])
    func rangeLookupsMatchEvaluationOnModels(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let table = try table(&random)
        for _ in 0..<60 {
            let low = Double(Int.random(in: -22...22, using: &random)) / 4
            let high = low + Double(Int.random(in: 0...6, using: &random)) / 4
            let lowCount = Int.random(in: -32...32, using: &random), highCount = lowCount + Int.random(in: 0...8, using: &random)
            let big = Int.max - 500
            try expectAgrees(table, FetchDescriptor(predicate: #Predicate { $0.level >= low && $0.level < high }), narrowed: nil,
                             "\(low) <= level < \(high)")
            try expectAgrees(table, FetchDescriptor(predicate: #Predicate { low < $0.level && $0.level <= high && $0.count > 0 }),
                             narrowed: nil, "\(low) < level <= \(high), count > 0")
            try expectAgrees(table, FetchDescriptor(predicate: #Predicate { $0.count > lowCount && $0.count <= highCount }),
                             narrowed: true, "\(lowCount) < count <= \(highCount)")
            try expectAgrees(table, FetchDescriptor(predicate: #Predicate { $0.count >= big }), narrowed: true, "count >= \(big)")
            try expectAgrees(table, FetchDescriptor(predicate: #Predicate { $0.station >= "b" && $0.station < "caf\u{E9}" }),
                             narrowed: nil, "station in [b, café)")
            try expectAgrees(table, FetchDescriptor(predicate: #Predicate { $0.level == 0 }), narrowed: true, "level == 0 (and -0.0)")
        }
        // Bounds that cross select nothing, and read nothing but the rows only models decide.
        try expectAgrees(table, FetchDescriptor(predicate: #Predicate { $0.count > 5 && $0.count < 2 }), narrowed: true, "crossed")
    }

    /// Several bounds on one attribute narrow to the tightest range, whichever order they come in.
    @Test func theTightestBoundsWin() throws {
        var table = SnapshotTable(schema: Schema([Reading.self]))
        let snapshots = (0..<1_000).map { number in
            let key = SnapshotValue.uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!)
            return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: Reading.entityName, primaryKey: key), values: [
                "id": key, "level": .double(0), "station": .string("s"), "count": .int(Int64(number)), "note": .null])
        }
        _ = try table.apply(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots), storeIdentifier: "S")
        func candidates(_ predicate: Predicate<Reading>) -> Int {
            table.candidates(for: DataStoreFetchRequest(descriptor: FetchDescriptor(predicate: predicate))).count
        }
        #expect(candidates(#Predicate { $0.count > 100 && $0.count > 900 }) == 99)
        #expect(candidates(#Predicate { $0.count > 900 && $0.count > 100 }) == 99)
        #expect(candidates(#Predicate { $0.count < 500 && $0.count < 10 }) == 10)
        #expect(candidates(#Predicate { $0.count < 10 && $0.count < 500 }) == 10)
        #expect(candidates(#Predicate { $0.count >= 995 && $0.count > 995 }) == 4)
        #expect(candidates(#Predicate { $0.count > 995 && $0.count >= 995 }) == 4)
        #expect(candidates(#Predicate { $0.count <= 3 && $0.count < 3 }) == 3)
        #expect(candidates(#Predicate { 10 < $0.count && $0.count <= 20 }) == 10)
    }

    @Test(arguments: [11, 22, 33] as [UInt64])
    func walksInSortOrderMatchEvaluationOnModels(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let table = try table(&random)
        for _ in 0..<40 {
            let limit = Int.random(in: 0...30, using: &random), offset = Int.random(in: 0...20, using: &random)
            let threshold = Int.random(in: -30...30, using: &random)
            for (sort, narrowed) in [
                ([SortDescriptor(\Reading.count)], true),
                ([SortDescriptor(\Reading.count, order: .reverse)], true),
                ([SortDescriptor(\Reading.station), SortDescriptor(\Reading.count, order: .reverse)], true),
                ([SortDescriptor(\Reading.station, order: .reverse), SortDescriptor(\Reading.level)], nil),   // NaN, other kinds in level
                ([SortDescriptor(\Reading.note), SortDescriptor(\Reading.count)], true),
                ([SortDescriptor(\Reading.note, order: .reverse)], true),
                ([SortDescriptor(\Reading.level)], nil),   // NaN: no walk
            ] as [([SortDescriptor<Reading>], Bool?)] {
                var descriptor = FetchDescriptor(predicate: #Predicate { $0.count > threshold }, sortBy: sort)
                descriptor.fetchLimit = limit
                descriptor.fetchOffset = offset
                try expectAgrees(table, descriptor, narrowed: narrowed.map { $0 && limit + offset < 60 },
                                 "count > \(threshold), sorted by \(sort), offset \(offset), limit \(limit)")
                descriptor.predicate = nil
                try expectAgrees(table, descriptor, narrowed: narrowed.map { $0 && limit + offset < 60 },
                                 "sorted by \(sort), offset \(offset), limit \(limit)")
            }
        }
    }
}
