import Foundation
import LogStore
import DataStores
import StoreTestSupport
import Testing

@Model final class Reading {
    var id = UUID()
    var sensor: String
    var timestamp: Date
    var value: Double

    init(sensor: String, timestamp: Date, value: Double) {
        self.sensor = sensor
        self.timestamp = timestamp
        self.value = value
    }
}

/// Minute `n` after 2026-01-01.
func minute(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_767_225_600 + Double(n) * 60) }

func configuration(_ directory: URL, segmentSize: Int = 4_096, historyRetention: LogRetention = .unlimited,
                   skipsDamagedRecords: Bool = false) -> LogStoreConfiguration {
    LogStoreConfiguration(directory: directory, timestamps: [LogTimestamp(\Reading.timestamp)], segmentSize: segmentSize,
                          historyRetention: historyRetention, skipsDamagedRecords: skipsDamagedRecords)
}

func open(_ configuration: LogStoreConfiguration) throws -> (ModelContainer, LogStore) {
    let container = try ModelContainer(for: Reading.self, configurations: configuration)
    guard let store = container.stores.first as? LogStore else { throw DataStoreError(.invalidConfiguration, "not a log store") }
    return (container, store)
}

/// Appends readings for minutes `range`, `perSave` to a save.
func append(_ range: Range<Int>, perSave: Int, to container: ModelContainer, author: String? = nil) throws {
    let context = ModelContext(container)
    context.author = author
    for start in stride(from: range.lowerBound, to: range.upperBound, by: perSave) {
        for n in start..<min(start + perSave, range.upperBound) {
            context.insert(Reading(sensor: "s\(n % 3)", timestamp: minute(n), value: Double(n)))
        }
        try context.save()
    }
}

func segmentFiles(_ directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".log") }.sorted()
}

@Suite struct LogStoreTests {
    @Test func aTimeRangeFetchReadsOnlyTheSegmentsAndRecordsInRange() throws {
        let directory = try temporaryDirectory()
        let (container, store) = try open(configuration(directory))
        try append(0..<2_000, perSave: 20, to: container)
        let segments = try segmentFiles(directory).count
        #expect(segments > 20, "the test needs many segments, has \(segments)")

        store.resetStatistics()
        let start = minute(1_000), end = minute(1_040)
        let inRange = try ModelContext(container).fetch(FetchDescriptor<Reading>(
            predicate: #Predicate { $0.timestamp >= start && $0.timestamp < end }, sortBy: [SortDescriptor(\.timestamp)]))
        #expect(inRange.map(\.value) == (1_000..<1_040).map(Double.init))
        // Bounds are taken as closed, so the save starting exactly at `end` may be read too.
        #expect(store.statistics.segmentsRead <= 3, "read \(store.statistics.segmentsRead) of \(segments) segments")
        #expect(store.statistics.recordsDecoded <= 3, "decoded \(store.statistics.recordsDecoded) records for 40 readings in 2 saves")

        store.resetStatistics()
        let high = try ModelContext(container).fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 1_990 }))
        #expect(high == 10)
        #expect(store.statistics.segmentsRead == segments, "a predicate not on time reads every segment")
    }

    @Test func aTornLastTransactionIsCutBackAtEveryByteOffset() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 1 << 20)
        do {
            let (container, _) = try open(settings)
            try append(0..<6, perSave: 2, to: container)
        }
        let segment = directory.appending(path: try #require(try segmentFiles(directory).first))
        let whole = try Data(contentsOf: segment)
        let (_, store) = try open(settings)
        let lastStart = try #require(try store.fetchHistory(HistoryDescriptor<LogTransaction>()).count == 3 ? whole.count - frameLength(whole, index: 2) : nil)
        for cut in lastStart..<whole.count {
            try whole.prefix(cut).write(to: segment)
            let (container, reopened) = try open(settings)
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>()) == 4, "cut at byte \(cut)")
            #expect(try reopened.fetchHistory(HistoryDescriptor<LogTransaction>()).count == 2, "cut at byte \(cut)")
            try append(100..<102, perSave: 2, to: container)
            let (again, _) = try open(settings)
            #expect(try ModelContext(again).fetchCount(FetchDescriptor<Reading>()) == 6, "append after a cut at byte \(cut)")
        }
    }

    /// The length of record `index` of a segment (header says the payload length).
    func frameLength(_ data: Data, index: Int) -> Int {
        var offset = 0
        for _ in 0..<index {
            offset += 24 + Int(data[offset]) + Int(data[offset + 1]) << 8 + Int(data[offset + 2]) << 16
        }
        return 24 + Int(data[offset]) + Int(data[offset + 1]) << 8 + Int(data[offset + 2]) << 16
    }

    /// A range read checks the records it decodes; the records it skips by time are not read.
    @Test func aRangeReadReportsDamageInTheRecordsItReads() throws {
        let directory = try temporaryDirectory()
        do {
            let (container, _) = try open(configuration(directory))
            try append(0..<60, perSave: 2, to: container)
        }
        let name = try #require(try segmentFiles(directory).first)
        let segment = directory.appending(path: name)
        var data = try Data(contentsOf: segment)
        data[30] ^= 0x20   // inside the first record's payload: minutes 0 and 1
        try data.write(to: segment)
        let (container, _) = try open(configuration(directory))   // a sealed segment opens from its index
        let context = ModelContext(container)
        let first = minute(0), second = minute(1), third = minute(2)
        #expect(try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.timestamp >= third && $0.timestamp <= third })).count == 1)
        for predicate in [#Predicate<Reading> { $0.timestamp >= first && $0.timestamp <= second }, #Predicate<Reading> { $0.value >= 0 }] {
            #expect {
                _ = try context.fetch(FetchDescriptor<Reading>(predicate: predicate))
            } throws: { error in
                (error as? DataStoreError)?.code == .corruptStore && "\(error)".contains(name)
            }
        }
        #expect(try Data(contentsOf: segment) == data, "the segment is untouched")
    }

    @Test func aDamagedRecordInTheMiddleIsReportedOrSkippedOnRequest() throws {
        let directory = try temporaryDirectory()
        do {
            let (container, _) = try open(configuration(directory, segmentSize: 1 << 20))
            try append(0..<6, perSave: 2, to: container)
        }
        let name = try #require(try segmentFiles(directory).first)
        let segment = directory.appending(path: name)
        var data = try Data(contentsOf: segment)
        data[30] ^= 0x20   // inside the first record's payload
        try data.write(to: segment)
        do {
            _ = try open(configuration(directory, segmentSize: 1 << 20))
            Issue.record("opening a log with a damaged record in the middle must throw")
        } catch let error as DataStoreError {
            #expect(error.code == .corruptStore)
            #expect(error.message.contains(name) && error.message.contains("byte 0"), "\(error.message)")
        }
        #expect(try Data(contentsOf: segment) == data, "the segment is untouched")
        let (container, _) = try open(configuration(directory, segmentSize: 1 << 20, skipsDamagedRecords: true))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 0 })) == 4)
    }

    @Test func retentionBySizeDropsWholeSegmentsAndExpiresTheirTokens() throws {
        let directory = try temporaryDirectory()
        let (container, store) = try open(configuration(directory, segmentSize: 2_048, historyRetention: .bytes(8_192)))
        try append(0..<10, perSave: 10, to: container)
        let first = try #require(try store.currentHistoryToken())
        try append(10..<1_000, perSave: 10, to: container)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".log") }
            .map { try FileManager.default.attributesOfItem(atPath: directory.appending(path: $0).path)[.size] as? Int ?? 0 }
            .reduce(0, +)
        #expect(onDisk <= 8_192 + 2_048, "the log holds \(onDisk) bytes")
        #expect(throws: HistoryError(.historyTokenExpired, "")) {
            try store.fetchHistory(HistoryDescriptor<LogTransaction>(after: first))
        }
        let newest = try ModelContext(container).fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 990 }))
        #expect(newest.count == 10, "the newest readings are kept")
    }

    @Test func retentionByAgeKeepsOnlyTheSegmentBeingWritten() throws {
        let directory = try temporaryDirectory()
        let (container, _) = try open(configuration(directory, segmentSize: 1_024, historyRetention: .age(0)))
        try append(0..<200, perSave: 5, to: container)
        #expect(try segmentFiles(directory).count == 1)
    }

    @Test func historyHasItsOwnInsertOnlyTypes() throws {
        let directory = try temporaryDirectory()
        let (container, store) = try open(configuration(directory))
        try append(0..<4, perSave: 2, to: container, author: "sensor-hub")
        let transactions = try store.fetchHistory(HistoryDescriptor<LogTransaction>())
        #expect(transactions.map(\.author) == ["sensor-hub", "sensor-hub"])
        var times: [Date?] = []
        for change in transactions.flatMap(\.changes) {
            guard case .insert(let insert as LogInsert<Reading>) = change else {
                Issue.record("a log transaction holds only LogInsert changes, saw \(change)")
                continue
            }
            times.append(insert.recordTimestamp)
        }
        #expect(times == (0..<4).map(minute))
        let token = try #require(transactions.first?.token)
        #expect(try store.fetchHistory(HistoryDescriptor<LogTransaction>(after: token)).map(\.transactionIdentifier) == [2])
        #expect(throws: HistoryError(.foreignToken, "")) {
            try store.fetchHistory(HistoryDescriptor<LogTransaction>(after: LogToken(storeIdentifier: "other", transactionNumber: 1)))
        }
        // The same history through the container, as DefaultHistoryTransaction.
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }

    @Test func deleteHistoryDropsWholeSegmentsBeforeAToken() throws {
        let directory = try temporaryDirectory()
        let (container, store) = try open(configuration(directory, segmentSize: 1_024))
        try append(0..<100, perSave: 2, to: container)
        let before = try segmentFiles(directory).count
        let cut = LogToken(storeIdentifier: store.identifier, transactionNumber: 25)
        try store.deleteHistory(HistoryDescriptor<LogTransaction>(predicate: #Predicate { $0.token <= cut }))
        let remaining = try store.fetchHistory(HistoryDescriptor<LogTransaction>())
        #expect(try segmentFiles(directory).count < before)
        #expect((remaining.first?.transactionIdentifier ?? 0) <= 26, "only whole segments before the token go")
        #expect((remaining.first?.transactionIdentifier ?? 0) > 1)
        #expect(throws: HistoryError(.historyTokenExpired, "")) {
            try store.fetchHistory(HistoryDescriptor<LogTransaction>(after: LogToken(storeIdentifier: store.identifier, transactionNumber: 1)))
        }
    }
}
