import Foundation
import LogStore
import StoreProtocol
import StoreFiles
import StoreTestSupport
import Testing

/// Issue 11, defect 1: a bad frame is a torn tail only when no valid record follows it.
@Suite struct DamagedFrameTests {
    /// Byte offsets at which the records of a segment start.
    static func recordOffsets(_ data: Data) -> [Int] {
        var offsets: [Int] = [], offset = 0
        while offset + 24 <= data.count {
            offsets.append(offset)
            offset += 24 + Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24
        }
        return offsets
    }

    /// The ways a record's header or body can be damaged.
    enum Damage: CaseIterable {
        case lengthPastTheEnd, hugeLength, checksumFlip, payloadFlip, zeroedHeader

        func apply(to data: inout Data, at offset: Int) {
            switch self {
            case .lengthPastTheEnd:
                let length = UInt32(data.count - offset)   // reaches past the end by 24 bytes
                withUnsafeBytes(of: length.littleEndian) { data.replaceSubrange(offset..<offset + 4, with: $0) }
            case .hugeLength: data[offset + 3] = 0x7F
            case .checksumFlip: data[offset + 5] ^= 0x01
            case .payloadFlip: data[offset + 30] ^= 0x20
            case .zeroedHeader: data.replaceSubrange(offset..<offset + 24, with: Data(count: 24))
            }
        }
    }

    /// A log of one segment holding 10 transactions of one reading each (minutes 0…9).
    func tenRecordLog() throws -> (directory: URL, segment: URL, data: Data) {
        let directory = try temporaryDirectory()
        let (container, _) = try open(configuration(directory, segmentSize: 1 << 20))
        try append(0..<10, perSave: 1, to: container)
        let segment = directory.appending(path: try #require(try segmentFiles(directory).first))
        return (directory, segment, try Data(contentsOf: segment))
    }

    func values(_ container: ModelContainer) throws -> [Double] {
        try ModelContext(container).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.timestamp)])).map(\.value)
    }

    /// The tester's case: record 3's length reaches past the end of the file. Before the fix, a
    /// writable open cut the segment to 2 records and a read-only open returned 2 with no error.
    @Test func aLengthPastTheEndInFrontOfValidRecordsIsCorruptionNotATornTail() throws {
        let (directory, segment, pristine) = try tenRecordLog()
        let offsets = Self.recordOffsets(pristine)
        #expect(offsets.count == 10)
        var damaged = pristine
        Damage.lengthPastTheEnd.apply(to: &damaged, at: offsets[2])
        try damaged.write(to: segment)
        for allowsSave in [true, false] {
            var settings = configuration(directory, segmentSize: 1 << 20)
            settings.allowsSave = allowsSave
            #expect {
                _ = try open(settings)
            } throws: { error in
                guard let error = error as? DataStoreError else { return false }
                return error.code == .corruptStore && error.message.contains(segment.lastPathComponent)
                    && error.message.contains("byte \(offsets[2])")
            }
            #expect(try Data(contentsOf: segment) == damaged, "allowsSave \(allowsSave): the segment is untouched")
        }
        // Reading around the damage on request returns the 9 records whose checksums hold.
        var skipping = configuration(directory, segmentSize: 1 << 20, skipsDamagedRecords: true)
        skipping.allowsSave = false
        #expect(try values(open(skipping).0) == [0, 1, 3, 4, 5, 6, 7, 8, 9])
    }

    /// Every kind of damage at every record: in front of valid records it is `.corruptStore`
    /// naming the offset, changing nothing; at the last record (the negative control) it is a
    /// torn tail, and exactly that record goes, except a changed length: the record's checksum
    /// then holds over the bytes to the end, so it was written whole (issue 28, defect 13), and
    /// it is `.corruptStore` too.
    @Test func everyDamageAtEveryRecordIsCorruptionUnlessNothingValidFollows() throws {
        let (directory, segment, pristine) = try tenRecordLog()
        let offsets = Self.recordOffsets(pristine)
        var torn = 0, corrupt = 0
        for damage in Damage.allCases {
            for (index, offset) in offsets.enumerated() {
                var damaged = pristine
                damage.apply(to: &damaged, at: offset)
                try damaged.write(to: segment)
                let what = "\(damage) at record \(index) (byte \(offset))"
                let lengthChanged = damage == .lengthPastTheEnd || damage == .hugeLength
                if index < offsets.count - 1 || lengthChanged {
                    for allowsSave in [false, true] {
                        var settings = configuration(directory, segmentSize: 1 << 20)
                        settings.allowsSave = allowsSave
                        do {
                            let (container, _) = try open(settings)
                            Issue.record("\(what), allowsSave \(allowsSave): opened and read \(try values(container))")
                        } catch let error as DataStoreError {
                            #expect(error.code == .corruptStore && error.message.contains("byte \(offset)"), "\(what): \(error)")
                        }
                        #expect(try Data(contentsOf: segment) == damaged, "\(what), allowsSave \(allowsSave): untouched")
                    }
                    corrupt += 1
                } else {
                    let (container, _) = try open(configuration(directory, segmentSize: 1 << 20))
                    #expect(try values(container) == (0..<9).map(Double.init), "\(what): a torn tail")
                    #expect(try Data(contentsOf: segment) == pristine.prefix(offset), "\(what): cut at the record")
                    torn += 1
                }
            }
        }
        #expect(corrupt == 9 * Damage.allCases.count + 2 && torn == Damage.allCases.count - 2)
    }

    /// A record whose checksum holds but whose payload does not decode is never a torn tail nor
    /// skipped, at the end of a segment or in its middle, read-only or writable, with
    /// `skipsDamagedRecords` or without: the open fails naming the segment and offset, and
    /// nothing is cut.
    @Test func aRecordThatPassesItsChecksumButDoesNotDecodeIsCorruption() throws {
        let (directory, segment, pristine) = try tenRecordLog()
        let payload = Data(#"{"transactionNumber":"eleven"}"#.utf8)
        var frame = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { frame.append(contentsOf: $0) } }
        append(UInt32(payload.count))
        append(UInt32(0))
        append(minute(10).timeIntervalSince1970.bitPattern)
        append(minute(10).timeIntervalSince1970.bitPattern)
        frame.append(payload)
        let checksum = CRC32.checksum(frame[8...])
        withUnsafeBytes(of: checksum.littleEndian) { frame.replaceSubrange(4..<8, with: $0) }
        let lastRecord = try #require(Self.recordOffsets(pristine).last)
        for at in [pristine.count, lastRecord] {
            var damaged = pristine
            damaged.insert(contentsOf: frame, at: at)
            try damaged.write(to: segment)
            for allowsSave in [true, false] {
                for skipping in [false, true] {
                    var settings = configuration(directory, segmentSize: 1 << 20, skipsDamagedRecords: skipping)
                    settings.allowsSave = allowsSave
                    #expect {
                        _ = try open(settings)
                    } throws: { error in
                        guard let error = error as? DataStoreError else { return false }
                        return error.code == .corruptStore && error.message.contains(segment.lastPathComponent)
                            && error.message.contains("byte \(at)")
                    }
                    #expect(try Data(contentsOf: segment) == damaged, "at \(at), allowsSave \(allowsSave), skipping \(skipping): nothing is cut")
                }
            }
        }
    }
}
