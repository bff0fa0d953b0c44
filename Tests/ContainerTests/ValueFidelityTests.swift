import DataStores
import Foundation
import JSONStore
import LogStore
import MemoryStore
import StoreTestSupport
import Testing

/// Two promises of the docs an independent tester found broken (2026-11-29): every value reads
/// back exactly (a `Float` signaling NaN came back quieted, widened to `Double` by the hardware),
/// and a value nested deeper than `SnapshotValue.maximumNestingDepth` is refused at save with
/// `unsupportedValue` before anything is written (JSONStore's save overflowed the stack encoding
/// it; MemoryStore stored it and then crashed every fetch).
@Suite struct ValueFidelityTests {
    enum Kind: CaseIterable { case memory, json, log }

    struct Wrapped: Codable { var f: Float }

    @Model final class FL {
        var f: Float
        var fs: [Float]
        var d: Double
        var wrapped: Wrapped
        init(f: Float, fs: [Float], d: Double, wrapped: Wrapped) { self.f = f; self.fs = fs; self.d = d; self.wrapped = wrapped }
    }

    /// A `Codable` attribute that nests two levels (an object, then an array) per `Deep`.
    struct Deep: Codable {
        var c: [Deep]

        /// `levels` nested `Deep`s, built without recursion.
        static func nested(_ levels: Int) -> Deep {
            var deep = Deep(c: [])
            for _ in 1..<levels { deep = Deep(c: [deep]) }
            return deep
        }

        /// How many `Deep`s nest, counted without recursion.
        var levels: Int {
            var (count, current) = (1, self)
            while let inner = current.c.first { count += 1; current = inner }
            return count
        }

        /// Releases a deep value level by level: letting it go at once would release it by
        /// recursion as deep as it nests, which is not what this test is about.
        static func dismantle(_ deep: inout Deep) {
            var current = deep
            deep = Deep(c: [])
            while !current.c.isEmpty { current = current.c.removeLast() }
        }
    }

    @Model final class Holder {
        var name: String
        var deep: Deep
        init(name: String, deep: Deep) { self.name = name; self.deep = deep }
    }

    static func open<each M: PersistentModel>(_ kind: Kind, at directory: URL, for types: repeat (each M).Type) throws -> ModelContainer {
        var schemaTypes: [any PersistentModel.Type] = []
        for type in repeat each types { schemaTypes.append(type) }
        let schema = Schema(schemaTypes)
        switch kind {
        case .memory: return try ModelContainer(for: schema, configurations: [MemoryStoreConfiguration()])
        case .json: return try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(url: directory.appending(path: "store.json"))])
        case .log: return try ModelContainer(for: schema, configurations: [LogStoreConfiguration(directory: directory.appending(path: "store.log"))])
        }
    }

    // MARK: Float NaNs

    static let floatNaNBits: [UInt32] = [0x7F80_0001, 0xFF80_0001, 0x7FA0_0000, 0x7FBF_FFFF, 0x7FC0_0001, 0xFFC0_0000, 0x7FFF_FFFF]

    /// Every `Float` NaN, signaling or quiet, reads back bit for bit: as an attribute, in an
    /// array, inside a `Codable` struct; in a fresh context and in the reopened store.
    @Test(arguments: Kind.allCases)
    func everyFloatNaNReadsBackBitForBit(kind: Kind) throws {
        let directory = try temporaryDirectory()
        let doubleSignaling = Double(bitPattern: 0x7FF0_0000_0000_0001)
        var containers = [try Self.open(kind, at: directory, for: FL.self)]
        let context = ModelContext(containers[0])
        for bits in Self.floatNaNBits {
            let f = Float(bitPattern: bits)
            context.insert(FL(f: f, fs: [f, 1.5, f], d: doubleSignaling, wrapped: Wrapped(f: f)))
        }
        try context.save()
        if kind != .memory { containers.append(try Self.open(kind, at: directory, for: FL.self)) }
        for container in containers {
            let stored = try ModelContext(container).fetch(FetchDescriptor<FL>())
            #expect(Set(stored.map(\.f.bitPattern)) == Set(Self.floatNaNBits), "\(kind): the attribute")
            for model in stored {
                let bits = model.f.bitPattern
                #expect(model.fs.map(\.bitPattern) == [bits, Float(1.5).bitPattern, bits], "\(kind): the array")
                #expect(model.wrapped.f.bitPattern == bits, "\(kind): inside a Codable struct")
                #expect(model.d.bitPattern == doubleSignaling.bitPattern, "\(kind): the Double")
            }
        }
    }

    // MARK: Nesting depth

    /// The total bytes of every file under `directory`: what a refused save must leave alone.
    static func files(in directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if let data = FileManager.default.contents(atPath: url.path) { files[url.path] = data }
        }
        return files
    }

    /// A value nested far deeper than any stack could recurse through (20,000 `Deep`s, 40,000
    /// levels) is refused with `unsupportedValue` and nothing is written: no history, the files
    /// unchanged, the store still reads what it had.
    @Test(arguments: Kind.allCases)
    func aValueNestedTooDeepIsRefusedBeforeAnythingIsWritten(kind: Kind) throws {
        let directory = try temporaryDirectory()
        let container = try Self.open(kind, at: directory, for: Holder.self)
        let context = ModelContext(container)
        context.insert(Holder(name: "shallow", deep: .nested(3)))
        try context.save()
        let history = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
        let filesBefore = try Self.files(in: directory)

        let holder = Holder(name: "deep", deep: .nested(20_000))
        context.insert(holder)
        do {
            try context.save()
            Issue.record("\(kind): a value nested 40,000 levels deep was saved")
        } catch let error as DataStoreError {
            #expect(error.code == .unsupportedValue, "\(kind): \(error)")
            #expect("\(error)".contains("512"), "\(kind): the message names the limit: \(error)")
        }
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == history, "\(kind)")
        #expect(try Self.files(in: directory) == filesBefore, "\(kind): the files are unchanged")
        context.delete(holder)
        var deep = holder.deep
        holder.deep = Deep(c: [])
        Deep.dismantle(&deep)

        let stored = try ModelContext(container).fetch(FetchDescriptor<Holder>())
        #expect(stored.map(\.name) == ["shallow"], "\(kind)")
        #expect(stored.map(\.deep.levels) == [3], "\(kind)")
    }

    /// 257 `Deep`s nest 513 levels (the innermost `Deep` is the 513th) and are refused on every
    /// backend; 256 nest 512 (the innermost empty array is the 512th) and MemoryStore holds
    /// them; a JSON store counts the three levels of its own framing around a row's values too,
    /// so 254 (508 levels) is what every backend holds.
    @Test(arguments: Kind.allCases)
    func theDepthLimitIsFiveHundredAndTwelveLevels(kind: Kind) throws {
        let directory = try temporaryDirectory()
        let container = try Self.open(kind, at: directory, for: Holder.self)
        let context = ModelContext(container)
        let deepest = kind == .memory ? 256 : 254
        context.insert(Holder(name: "deepest", deep: .nested(deepest)))
        try context.save()
        let history = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
        context.insert(Holder(name: "too deep", deep: .nested(257)))
        #expect(throws: DataStoreError.unsupportedValue) { try context.save() }
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == history, "\(kind)")
        let reader = kind == .memory ? container : try Self.open(kind, at: directory, for: Holder.self)
        let stored = try ModelContext(reader).fetch(FetchDescriptor<Holder>())
        #expect(stored.map(\.name) == ["deepest"], "\(kind)")
        #expect(stored.map(\.deep.levels) == [deepest], "\(kind)")
    }

    /// A store file holding a value nested deeper than the parser reads (written by hand: no
    /// save writes one) fails to open with an error; it does not overflow the stack.
    @Test func aJSONFileWithAValueNestedTooDeepFailsToOpenWithoutCrashing() throws {
        let directory = try temporaryDirectory()
        do {
            let context = ModelContext(try Self.open(.json, at: directory, for: Holder.self))
            context.insert(Holder(name: "marker", deep: Deep(c: [])))
            try context.save()
        }
        var replaced = 0
        for url in try Self.files(in: directory).keys {
            guard let text = try? String(contentsOfFile: url, encoding: .utf8), text.contains("{\"c\":[]}") else { continue }
            let levels = 20_000
            let deep = String(repeating: "{\"c\":[", count: levels) + String(repeating: "]}", count: levels)
            try text.replacingOccurrences(of: "{\"c\":[]}", with: deep).write(toFile: url, atomically: true, encoding: .utf8)
            replaced += 1
        }
        #expect(replaced > 0, "the stored value is where the test expects it")
        #expect(throws: (any Error).self) {
            _ = try ModelContext(try Self.open(.json, at: directory, for: Holder.self)).fetch(FetchDescriptor<Holder>())
        }
    }
}
