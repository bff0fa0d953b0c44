import Foundation
import JSONStore
import DataStores
import StoreFiles
import StoreTestSupport
import Testing

/// A tree of any depth: each level is an object holding an array (two levels of JSON).
struct Tree: Codable, Equatable {
    var children: [Tree]
    static func chain(_ depth: Int) -> Tree { (0..<depth).reduce(Tree(children: [])) { tree, _ in Tree(children: [tree]) } }
}

@Model final class Measure {
    var id = UUID()
    var double: Double = 0
    var optionalDouble: Double? = 0
    var float: Float = 0
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var decimal: Decimal = 0
    var labels: [String: String] = [:]
    var tree = Tree(children: [])
    init() {}
}

private func openMeasures(_ url: URL, compactionThreshold: Int = 1 << 20) throws -> ModelContainer {
    try ModelContainer(for: Measure.self, configurations: JSONStoreConfiguration(url: url, compactionThreshold: compactionThreshold))
}

private func fetchMeasures(_ container: ModelContainer) throws -> [UUID: Measure] {
    Dictionary(uniqueKeysWithValues: try ModelContext(container).fetch(FetchDescriptor<Measure>()).map { ($0.id, $0) })
}

/// Issue 11, defect classes 2 and 3, through the public API: values a JSON store acknowledged
/// but could not read back exactly after a reopen.
@Suite struct ValueExactnessTests {
    /// Non-finite doubles were written as `null` (the optional came back nil, the others made the
    /// row unreadable); NaN and infinite dates and `Decimal.nan` were written, then refused on reading;
    /// `$` keys of a `[String: String]` were written, then refused or misread.
    @Test(arguments: [1 << 20, 1])
    func valuesJSONLacksSurviveAReopen(compactionThreshold: Int) throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let measure = Measure()
        measure.double = -.nan
        measure.optionalDouble = -.infinity
        measure.float = .infinity
        measure.date = Date(timeIntervalSinceReferenceDate: .nan)
        measure.decimal = .nan
        measure.labels = ["$date": "tomorrow", "$uuid": UUID().uuidString, "$data": "AAAA", "": "empty", "$object": "x"]
        let context = ModelContext(try openMeasures(url, compactionThreshold: compactionThreshold))
        context.insert(measure)
        try context.save()

        let back = try #require(try fetchMeasures(try openMeasures(url))[measure.id])
        #expect(back.double.isNaN && back.double.sign == .minus)
        #expect(back.optionalDouble == -.infinity)
        #expect(back.float == .infinity)
        #expect(back.date.timeIntervalSinceReferenceDate.isNaN)
        #expect(back.decimal.isNaN)
        #expect(back.labels == measure.labels)
    }

    /// Dates were stored as seconds since 1970 and about half of all `Date()`s lost their last bit.
    @Test(arguments: [1 << 20, 1])
    func datesSurviveAReopenBitForBit(compactionThreshold: Int) throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let context = ModelContext(try openMeasures(url, compactionThreshold: compactionThreshold))
        var saved: [UUID: Date] = [:]
        var lossyThrough1970 = 0
        for index in 0..<64 {
            let measure = Measure()
            measure.date = Date().addingTimeInterval(Double(index) * 0.000_123_457)
            if Date(timeIntervalSince1970: measure.date.timeIntervalSince1970) != measure.date { lossyThrough1970 += 1 }
            saved[measure.id] = measure.date
            context.insert(measure)
        }
        try context.save()
        #expect(lossyThrough1970 > 0, "the sample holds dates that seconds since 1970 cannot carry")
        let fetched = try fetchMeasures(try openMeasures(url))
        for (id, date) in saved {
            let back = try #require(fetched[id])
            #expect(back.date.timeIntervalSinceReferenceDate.bitPattern == date.timeIntervalSinceReferenceDate.bitPattern,
                    "\(date.timeIntervalSinceReferenceDate) came back as \(back.date.timeIntervalSinceReferenceDate)")
        }
    }

    /// Nesting past the parser's limit was acknowledged, and the next open failed. Now the save
    /// is refused with a typed error before anything is written.
    @Test func nestingTooDeepIsRefusedAtSaveAndNothingIsWritten() throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        let container = try openMeasures(url)
        let shallow = Measure()
        shallow.tree = .chain(200)   // 400 levels of JSON, plus the journal's framing
        let context = ModelContext(container)
        context.insert(shallow)
        try context.save()
        let before = try directoryContents(directory)

        let deep = Measure()
        deep.tree = .chain(300)
        let refusing = ModelContext(container)
        refusing.insert(deep)
        do {
            try refusing.save()
            Issue.record("a save of a value nested 600 levels deep must be refused")
        } catch let error as DataStoreError {
            #expect(error.code == .unsupportedValue, "\(error)")
            // The snapshot coder refuses it now, before the store: it names the model, the
            // attribute's type and where inside it (not yet the attribute's name).
            #expect(error.message.contains("Tree") && error.message.contains(".children[0]"),
                    "the message names the value: \(error.message)")
            #expect(error.message.count < 400, "a short message: \(error.message)")
        }
        #expect(try directoryContents(directory) == before, "a refused save writes nothing")
        for reader in [container, try openMeasures(url)] {
            let rows = try fetchMeasures(reader)
            #expect(rows.count == 1)
            #expect(rows[shallow.id]?.tree == shallow.tree)
        }
    }

    /// A line whose checksum holds was written whole; if it does not decode (here: what the old
    /// writer wrote for a NaN date), it is not a torn write to cut but an error, and nothing is cut.
    @Test(arguments: [false, true])
    func aWholeJournalLineThatDoesNotDecodeIsAnErrorNotATornTail(linesAfterIt: Bool) throws {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        try save(["a", "b", "c"], to: try openContainer(url))
        let journalURL = URL(filePath: url.path + ".journal")
        var lines = try Data(contentsOf: journalURL).split(separator: UInt8(ascii: "\n")).map { Data($0) }
        let damaged = linesAfterIt ? 1 : 2
        let json = String(decoding: lines[damaged].dropFirst(9), as: UTF8.self)
        let title = linesAfterIt ? #""title":"b""# : #""title":"c""#
        #expect(json.contains(title))
        let undecodable = Data(json.replacingOccurrences(of: title, with: #""title":{"$date":null}"#).utf8)
        lines[damaged] = Data(String(format: "%08x ", CRC32.checksum(undecodable)).utf8) + undecodable
        try Data(lines.joined(separator: [UInt8(ascii: "\n")]) + [UInt8(ascii: "\n")]).write(to: journalURL)
        let offset = lines[..<damaged].reduce(0) { $0 + $1.count + 1 }
        let before = try directoryContents(directory)
        for _ in 0..<2 {
            do {
                let container = try openContainer(url)
                try save(["d"], to: container)
                Issue.record("a store whose journal holds a whole line that does not decode must not open; it read \(try titles(container))")
            } catch let error as DataStoreError {
                #expect(error.code == .corruptStore)
                #expect(error.message.contains("byte \(offset)"), "the message names the offset: \(error.message)")
                #expect(error.message.contains(url.path + ".journal"), "the message names the file: \(error.message)")
            }
            #expect(try directoryContents(directory) == before, "nothing is cut")
        }
    }
}
