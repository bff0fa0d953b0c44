import Foundation
import LogStore
import DataStores
import StoreTestSupport
import Testing

/// A value nested `depth` levels deep (two JSON levels each: an object and an array).
struct Box: Codable, Equatable {
    var inner: [Box]

    static func nested(_ depth: Int) -> Box { depth == 0 ? Box(inner: []) : Box(inner: [nested(depth - 1)]) }
    var depth: Int { inner.first.map { $0.depth + 1 } ?? 0 }
}

@Model final class Note {
    var id = UUID()
    var box: Box
    var tags: [String: Double]

    init(box: Box, tags: [String: Double] = [:]) {
        self.box = box
        self.tags = tags
    }
}

/// Issue 11, defect 5: a save whose values the log's JSON cannot carry is either refused with a
/// typed error before anything is written, or read back exactly; never acknowledged and then
/// unreadable. (Which one depends on the JSON encoder; both pass.) Before the fix, a NaN was
/// acknowledged and read back as `null`, so every fetch of the model failed; nesting too deep
/// was acknowledged and the log no longer opened.
@Suite struct UnstorableValueTests {
    func settings(_ directory: URL) -> LogStoreConfiguration {
        LogStoreConfiguration(directory: directory, timestamps: [LogTimestamp(\Reading.timestamp)], segmentSize: 1 << 20)
    }

    func openBoth(_ directory: URL) throws -> ModelContainer {
        try ModelContainer(for: Reading.self, Note.self, configurations: settings(directory))
    }

    /// Saves `insert` into a fresh context: `true` when acknowledged, `false` when refused with a
    /// typed error that says nothing was written (and the segment did not change).
    func trySave(_ container: ModelContainer, directory: URL, _ insert: (ModelContext) -> Void) throws -> Bool {
        let segments = try directoryContents(directory).filter { $0.key.hasSuffix(".log") }
        let context = ModelContext(container)
        insert(context)
        do {
            try context.save()
            return true
        } catch let error as DataStoreError {
            #expect(error.code == .unsupportedValue && error.message.contains("nothing was written"), "\(error)")
            #expect(try directoryContents(directory).filter { $0.key.hasSuffix(".log") } == segments, "nothing was written")
            return false
        }
    }

    @Test func aNumberThatIsNotFiniteIsRefusedOrReadBackExactly() throws {
        for value in [Double.nan, .infinity, -.infinity] {
            let directory = try temporaryDirectory()
            let container = try openBoth(directory)
            try append(0..<2, perSave: 2, to: container)
            let saved = try trySave(container, directory: directory) { $0.insert(Reading(sensor: "x", timestamp: minute(5), value: value)) }
            let read = try ModelContext(try openBoth(directory)).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.timestamp)])).map(\.value)
            #expect(read.count == (saved ? 3 : 2), "\(value), saved \(saved)")
            #expect(Array(read.prefix(2)) == [0, 1], "\(value): the earlier readings")
            if saved, let last = read.last { #expect(last.bitPattern == value.bitPattern || (last.isNaN && value.isNaN), "\(value) read back as \(last)") }
        }
    }

    @Test func nestingTooDeepForTheReaderIsRefusedOrReadBackExactly() throws {
        let directory = try temporaryDirectory()
        let container = try openBoth(directory)
        try append(0..<2, perSave: 2, to: container)
        let deep = Box.nested(400)   // 800 JSON levels
        let saved = try trySave(container, directory: directory) { $0.insert(Note(box: deep)) }
        let reopened = try openBoth(directory)   // the log still opens
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Reading>()).count == 2)
        let notes = try ModelContext(reopened).fetch(FetchDescriptor<Note>())
        #expect(notes.count == (saved ? 1 : 0))
        if saved { #expect(notes.first?.box == deep) }
    }

    /// Keys that look like the encoder's tags, and ordinary nesting: saved and read back exactly
    /// (the negative control: the check refuses only what does not read back).
    @Test func dollarKeysAndOrdinaryNestingAreSavedAndReadBackExactly() throws {
        let directory = try temporaryDirectory()
        let container = try openBoth(directory)
        let tags = ["$date": 5.0, "$object": 1.5, "plain": -0.0]
        let saved = try trySave(container, directory: directory) { $0.insert(Note(box: .nested(20), tags: tags)) }
        #expect(saved)
        let notes = try ModelContext(try openBoth(directory)).fetch(FetchDescriptor<Note>())
        #expect(notes.first?.box == .nested(20))
        #expect(notes.first?.tags == tags)
        #expect(notes.first?.tags["plain"]?.sign == .minus)
    }
}
