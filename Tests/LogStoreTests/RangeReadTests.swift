import Foundation
import LogStore
import StoreProtocol
import StoreTestSupport
import Testing

/// A time-range read walks a segment's record headers, then reads only the records in range: it
/// returns exactly what a full scan and a filter return, reads fewer bytes, and still finds
/// damage in what it reads.
@Suite struct RangeReadTests {
    /// The values of the readings of minutes `minutes`, by a time-range fetch.
    static func rangeRead(_ container: ModelContainer, _ minutes: ClosedRange<Int>) throws -> [Double] {
        let low = minute(minutes.lowerBound), high = minute(minutes.upperBound)
        return try ModelContext(container).fetch(FetchDescriptor<Reading>(
            predicate: #Predicate { $0.timestamp >= low && $0.timestamp <= high })).map(\.value).sorted()
    }

    /// The same by a full scan (a predicate not on time) and a filter here.
    static func scanAndFilter(_ container: ModelContainer, _ minutes: ClosedRange<Int>) throws -> [Double] {
        try ModelContext(container).fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= -1 })).map(\.value)
            .filter { (Double(minutes.lowerBound)...Double(minutes.upperBound)).contains($0) }.sorted()
    }

    /// Appends readings of `minutes`, saves of the given sizes in turn.
    static func append(_ minutes: Range<Int>, sizes: [Int], to container: ModelContainer) throws {
        var start = minutes.lowerBound, turn = 0
        while start < minutes.upperBound {
            let count = min(sizes[turn % sizes.count], minutes.upperBound - start)
            try LogStoreTests.appendReadings(start..<start + count, to: container)
            start += count
            turn += 1
        }
    }

    static let ranges: [ClosedRange<Int>] = [
        0...0, 0...6, 5...20, 7...7, 8...8, 99...1_500, 640...641, 1_999...2_100, 2_400...2_400, 3_000...3_100, 0...2_999,
    ]

    /// Small and large saves (some records longer than a header window), several segments:
    /// records straddle the ranges' edges, and each range reads what a scan and a filter read.
    @Test func aRangeReadReturnsExactlyWhatAScanAndAFilterReturn() throws {
        let directory = try temporaryDirectory()
        let (container, _) = try open(configuration(directory, segmentSize: 300_000))
        try Self.append(0..<3_000, sizes: [1, 7, 600, 3, 900, 40], to: container)
        #expect(try segmentFiles(directory).count >= 2, "the test needs several segments")
        for minutes in Self.ranges {
            let expected = (minutes.clamped(to: 0...2_999)).map(Double.init)
            #expect(try Self.scanAndFilter(container, minutes) == (minutes.overlaps(0...2_999) ? expected : []), "\(minutes)")
            #expect(try Self.rangeRead(container, minutes) == Self.scanAndFilter(container, minutes), "\(minutes)")
        }
        // A new instance knows the sealed segments from their indexes only.
        let (reopened, _) = try open(configuration(directory, segmentSize: 300_000))
        for minutes in Self.ranges {
            #expect(try Self.rangeRead(reopened, minutes) == Self.scanAndFilter(reopened, minutes), "reopened, \(minutes)")
        }
    }

    /// Records of about 100 KB (1,000 readings a save): a range within one record reads its
    /// headers and that record, a fraction of what a scan reads.
    @Test func aRangeReadReadsFewerBytesThanAScan() throws {
        let directory = try temporaryDirectory()
        let (container, store) = try open(configuration(directory, segmentSize: 1 << 20))
        try Self.append(0..<6_000, sizes: [1_000], to: container)
        store.resetStatistics()
        #expect(try Self.rangeRead(container, 2_100...2_199) == (2_100...2_199).map(Double.init))
        let range = store.statistics
        store.resetStatistics()
        _ = try Self.scanAndFilter(container, 2_100...2_199)
        let scan = store.statistics
        #expect(range.recordsDecoded == 1 && scan.recordsDecoded == 6, "\(range), \(scan)")
        #expect(range.bytesRead > 0 && range.bytesRead * 4 < scan.bytesRead, "range \(range.bytesRead), scan \(scan.bytesRead) bytes")
    }

    /// Another instance appends after this one read the segment: this one's next range read
    /// catches up and reads the new records too, and bytes past the last whole record (a
    /// writer's append in progress) are not read as records.
    @Test func recordsAppendedByAnotherInstanceAreRead() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 1 << 20)
        let (first, _) = try open(settings)
        try Self.append(0..<100, sizes: [10, 3], to: first)
        #expect(try Self.rangeRead(first, 20...45) == (20...45).map(Double.init))

        let (second, _) = try open(settings)
        try Self.append(100..<200, sizes: [7, 30], to: second)
        for minutes in [90...150, 95...105, 150...199, 0...199] {
            #expect(try Self.rangeRead(first, minutes) == minutes.map(Double.init), "\(minutes)")
        }
        // The start of a record being appended: no whole record, and no error for it.
        let segment = directory.appending(path: try #require(try segmentFiles(directory).last))
        let handle = try FileHandle(forWritingTo: segment)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0x40, 0x00, 0x00, 0x00, 0x12, 0x34]))
        try handle.close()
        #expect(try Self.rangeRead(first, 150...199) == (150...199).map(Double.init))
        #expect(try Self.rangeRead(second, 190...250) == (190...199).map(Double.init))
    }

    /// A record in range whose bytes changed after this instance read it is `.corruptStore`
    /// naming the segment and offset (or, with `skipsDamagedRecords`, left out); a range that does
    /// not reach it does not read it and succeeds.
    @Test func aDamagedRecordInRangeIsCorruptionAndOneOutsideIsNotRead() throws {
        let directory = try temporaryDirectory()
        let (container, store) = try open(configuration(directory, segmentSize: 1 << 20))
        try Self.append(0..<200, sizes: [10], to: container)
        let name = try #require(try segmentFiles(directory).first)
        let segment = directory.appending(path: name)
        let pristine = try Data(contentsOf: segment)
        let offsets = DamagedFrameTests.recordOffsets(pristine)
        #expect(offsets.count == 20)
        var damaged = pristine
        DamagedFrameTests.Damage.payloadFlip.apply(to: &damaged, at: offsets[10])   // minutes 100…109
        try damaged.write(to: segment)

        for minutes in [100...105, 95...100, 109...109, 0...199] {
            #expect("\(minutes)") {
                _ = try Self.rangeRead(container, minutes)
            } throws: { error in
                guard let error = error as? DataStoreError else { return false }
                return error.code == .corruptStore && error.message.contains(name) && error.message.contains("byte \(offsets[10])")
            }
        }
        for (minutes, records) in [(0...99, 10), (110...199, 9), (95...99, 1)] {
            store.resetStatistics()
            #expect(try Self.rangeRead(container, minutes) == minutes.map(Double.init), "\(minutes)")
            #expect(store.statistics.recordsDecoded == records, "\(minutes): \(store.statistics)")
        }

        var skipping = configuration(directory, segmentSize: 1 << 20, skipsDamagedRecords: true)
        skipping.allowsSave = false
        let (reader, _) = try open(skipping)
        #expect(try Self.rangeRead(reader, 95...115) == (Array(95...99) + Array(110...115)).map(Double.init))
        #expect(try Data(contentsOf: segment) == damaged, "nothing was changed")
    }

    /// A damaged record header makes a range read read the whole segment, which names the
    /// damage, even where the range does not reach the record: past a wrong length, no header
    /// can be trusted to say where the next record starts. (A zeroed header reads as an empty
    /// record, so the damage is named where the walk finds the next header wrong: inside the
    /// damaged record.)
    @Test func aDamagedHeaderAnywhereInTheSegmentIsCorruption() throws {
        let directory = try temporaryDirectory()
        let (container, _) = try open(configuration(directory, segmentSize: 1 << 20))
        try Self.append(0..<200, sizes: [10], to: container)
        let name = try #require(try segmentFiles(directory).first)
        let segment = directory.appending(path: name)
        let pristine = try Data(contentsOf: segment)
        let offsets = DamagedFrameTests.recordOffsets(pristine)
        for damage in [DamagedFrameTests.Damage.hugeLength, .lengthPastTheEnd, .zeroedHeader] {
            var damaged = pristine
            damage.apply(to: &damaged, at: offsets[15])
            try damaged.write(to: segment)
            #expect("\(damage)") {
                _ = try Self.rangeRead(container, 20...30)
            } throws: { error in
                guard let error = error as? DataStoreError, error.code == .corruptStore, error.message.contains(name),
                      let at = error.message.split(separator: "damaged at byte ").dropFirst().first?.prefix(while: \.isNumber),
                      let byte = Int(at) else { return false }
                return (offsets[15]..<offsets[16]).contains(byte)
            }
        }
    }

    /// A sealed segment (one a read does not look at again when catching up) cut below what this
    /// instance knows of it is `.corruptStore` for a range read too.
    @Test func aSegmentCutBelowWhatWasReadFailsARangeRead() throws {
        let directory = try temporaryDirectory()
        let (container, _) = try open(configuration(directory, segmentSize: 8_000))
        try Self.append(0..<100, sizes: [10], to: container)
        #expect(try segmentFiles(directory).count >= 2, "the first segment is sealed")
        let segment = directory.appending(path: try #require(try segmentFiles(directory).first))
        let pristine = try Data(contentsOf: segment)
        let offsets = DamagedFrameTests.recordOffsets(pristine)
        try pristine.prefix(offsets[2]).write(to: segment)
        #expect {
            _ = try Self.rangeRead(container, 5...15)
        } throws: { error in
            (error as? DataStoreError)?.code == .corruptStore && (error as? DataStoreError)?.message.contains("cut or replaced") == true
        }
    }

    /// The same when the cut is inside the last record's payload, past every header a range
    /// read of large records reads: the read checks the segment's length before anything else.
    @Test func aSegmentCutInsideItsLastRecordFailsARangeReadOfItsFirst() throws {
        let directory = try temporaryDirectory()
        let (container, _) = try open(configuration(directory, segmentSize: 40_000))
        try Self.append(0..<1_000, sizes: [100], to: container)   // records of about 10 KB: headers read alone
        #expect(try segmentFiles(directory).count >= 2, "the first segment is sealed")
        let segment = directory.appending(path: try #require(try segmentFiles(directory).first))
        let pristine = try Data(contentsOf: segment)
        try pristine.prefix(pristine.count - 10).write(to: segment)
        #expect {
            _ = try Self.rangeRead(container, 5...15)
        } throws: { error in
            (error as? DataStoreError)?.code == .corruptStore && (error as? DataStoreError)?.message.contains("cut or replaced") == true
        }
    }
}

extension LogStoreTests {
    /// Appends one save of the readings of `minutes`.
    static func appendReadings(_ minutes: Range<Int>, to container: ModelContainer) throws {
        try append(minutes, perSave: minutes.count, to: container)
    }
}
