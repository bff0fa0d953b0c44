import Foundation
import LogStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 11: the times a range read skips by (record headers, segment indexes) come from the
/// `LogTimestamp` attribute of whoever wrote the records. A reader configured with another one
/// (or with one where the writer had none) must not skip by them.
@Suite struct TimeAttributeTests {
    func readings(_ directory: URL, minutes: ClosedRange<Int>) throws -> [Double] {
        let low = minute(minutes.lowerBound), high = minute(minutes.upperBound)
        let context = ModelContext(try open(configuration(directory, segmentSize: 700)).0)
        return try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.timestamp >= low && $0.timestamp <= high }))
            .map(\.value).sorted()
    }

    /// A log written through a location string (which names no timestamps), so its records are
    /// placed by save time, then read by a configuration that names `timestamp`: the range read
    /// used to skip every record, as the save times lie outside the readings' minutes.
    @Test func aLogWrittenWithoutTimestampsReadsWholeThroughOneWithThem() throws {
        let directory = try temporaryDirectory()
        let plain = try LogStoreConfiguration(location: StoreLocation(parsing: "log:\(directory.path)?segment-size=700"))
        try append(0..<30, perSave: 3, to: try ModelContainer(for: Reading.self, configurations: plain))
        #expect(try readings(directory, minutes: 9...11) == [9, 10, 11])
        #expect(try readings(directory, minutes: 0...29).count == 30)
    }

    /// Writers with and without the timestamp take turns; every range read is exact, and once
    /// the configuration settles, new segments are skipped by time again.
    @Test func writersThatDisagreeNeverHideRecords() throws {
        let directory = try temporaryDirectory()
        let plain = LogStoreConfiguration(directory: directory, segmentSize: 700)
        let timed = configuration(directory, segmentSize: 700)
        try append(0..<9, perSave: 3, to: try open(timed).0)
        try append(9..<18, perSave: 3, to: try open(plain).0)
        try append(18..<45, perSave: 3, to: try open(timed).0)
        for minutes in [0...44, 3...3, 9...11, 12...17, 15...20, 30...32, 44...44] {
            #expect(try readings(directory, minutes: minutes) == minutes.map(Double.init), "minutes \(minutes)")
        }
        let (container, store) = try open(timed)
        store.resetStatistics()
        let low = minute(39), high = minute(41)
        _ = try ModelContext(container).fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.timestamp >= low && $0.timestamp <= high }))
        #expect(store.statistics.segmentsRead < 10, "later segments are skipped by time: read \(store.statistics.segmentsRead)")
    }
}
