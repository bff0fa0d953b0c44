import Foundation
import LogStore
import DataStores
import StoreTestSupport
import Testing

/// A reading that counts how often a model of it is made: by its initializer or, in a fetch, by
/// decoding it from stored values (the transient's initial value runs in both).
@Model final class CountedReading {
    var id = UUID()
    var timestamp: Date
    var value: Double
    @Transient private var counted = CountedReading.countOne()

    init(timestamp: Date, value: Double) {
        self.timestamp = timestamp
        self.value = value
    }

    static let decodes = DecodeCount()
    private static func countOne() -> Bool {
        decodes.withLock { $0 += 1 }
        return true
    }
}

final class DecodeCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func withLock<R>(_ body: (inout Int) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&count)
    }
}

/// Time bounds come from the translated query: any comparison of the timestamp with a constant
/// date under `&&`, either way round, narrows the read; each record read is decoded into a
/// model once, by the context, and a count decodes none.
@Suite struct TimeRangeTests {
    @Test func boundsComeFromTheTranslatedQueryAndEachRowIsDecodedOnce() throws {
        let directory = try temporaryDirectory()
        let container = try ModelContainer(for: CountedReading.self, configurations: LogStoreConfiguration(
            directory: directory, timestamps: [LogTimestamp(\CountedReading.timestamp)], segmentSize: 4_096))
        let store = try #require(container.stores.first as? LogStore)
        let context = ModelContext(container)
        for start in stride(from: 0, to: 1_000, by: 20) {
            for n in start..<start + 20 { context.insert(CountedReading(timestamp: minute(n), value: Double(n))) }
            try context.save()
        }
        let start = minute(500), end = minute(520), at = minute(510), five = 505.0
        let cases: [(String, Predicate<CountedReading>, [Double])] = [
            ("start <= t && t < end", #Predicate { start <= $0.timestamp && $0.timestamp < end }, (500..<520).map(Double.init)),
            ("t > start && end >= t", #Predicate { $0.timestamp > start && end >= $0.timestamp }, (501...520).map(Double.init)),
            ("t == at", #Predicate { $0.timestamp == at }, [510]),
            ("value > 505 && t in range", #Predicate { $0.value > five && ($0.timestamp >= start && $0.timestamp <= end) },
             (506...520).map(Double.init)),
            ("t in range && t.description != \"\" (narrowed)",
             #Predicate { $0.timestamp >= start && $0.timestamp < end && $0.timestamp.timeIntervalSince1970 > 0 },
             (500..<520).map(Double.init)),
        ]
        for (text, predicate, expected) in cases {
            store.resetStatistics()
            CountedReading.decodes.withLock { $0 = 0 }
            let found = try ModelContext(container).fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.timestamp)]))
            #expect(found.map(\.value) == expected, "\(text)")
            #expect(store.statistics.recordsDecoded <= 3, "\(text): read \(store.statistics.recordsDecoded) records")
            let decodes = CountedReading.decodes.withLock { $0 }
            if FetchQuery(FetchDescriptor(predicate: predicate)).isFullyTranslated {
                #expect(decodes == expected.count, "\(text): \(decodes) models decoded for \(expected.count) rows")
            }

            CountedReading.decodes.withLock { $0 = 0 }
            store.resetStatistics()
            #expect(try ModelContext(container).fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "\(text)")
            #expect(store.statistics.recordsDecoded <= 3, "\(text): count read \(store.statistics.recordsDecoded) records")
            if FetchQuery(FetchDescriptor(predicate: predicate)).isFullyTranslated {
                #expect(CountedReading.decodes.withLock { $0 } == 0, "\(text): a count decodes no model")
            }
        }
    }
}
