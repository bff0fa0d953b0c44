import Foundation
import LogStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 11: a damaged log either refuses with a typed error or reads exactly what was
/// acknowledged. "Typed error or a read" is not enough: a read that quietly returns fewer or
/// different records is the failure this suite looks for.
@Suite struct DamagedReadsTests {
    /// One acknowledged save: its transaction number and the readings it appended.
    struct Save: Equatable {
        var transaction: Int64
        var readings: [Double]
    }

    /// Where each record of a segment lies, in the pristine file.
    static func recordRanges(_ data: Data) -> [Range<Int>] {
        var ranges: [Range<Int>] = [], offset = 0
        while offset + 24 <= data.count {
            let length = Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24
            ranges.append(offset..<(offset + 24 + length))
            offset += 24 + length
        }
        return ranges
    }

    /// The bytes of `pristine` that differ in `damaged`: from the first byte that differs to the
    /// last, counted from the end (a cut or an insertion is a region too, possibly empty).
    static func damagedRegion(_ pristine: Data, _ damaged: Data) -> Range<Int> {
        let a = [UInt8](pristine), b = [UInt8](damaged)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        return prefix..<max(prefix, a.count - suffix)
    }

    /// What a read of the damaged log may return: every save, or every save but a tail whose
    /// records the damage reached (a cut or torn end of the segment being written). A save whose
    /// record lies wholly outside the damage, or any save of a damaged index or identity file, is
    /// never missing; and nothing read may differ from what was saved.
    static func verdict(read: [Save], rangeReads: [ClosedRange<Int>: [Double]], truth: [Save], lastSegment: (name: String, pristine: Data)?,
                        damagedFile: String, damaged: Data) -> String? {
        guard read.count <= truth.count, Array(truth.prefix(read.count)) == read else {
            return "read \(read.map(\.transaction)) with readings that differ from the saves, or out of order"
        }
        let missing = truth.dropFirst(read.count)
        if !missing.isEmpty {
            guard let (name, pristine) = lastSegment, name == damagedFile else {
                return "lost saves \(missing.map(\.transaction)) though the damage is in \(damagedFile), not in the segment being written"
            }
            let region = damagedRegion(pristine, damaged)
            let ranges = recordRanges(pristine)
            let firstMissingInSegment = ranges.count - missing.count
            guard firstMissingInSegment >= 0 else { return "lost saves \(missing.map(\.transaction)) beyond the segment being written" }
            // Every missing record must be reached by the damage or follow a cut that ends the file.
            let cutToTheEnd = region.upperBound == pristine.count
            for index in firstMissingInSegment..<ranges.count {
                let record = ranges[index]
                let touched = record.lowerBound < max(region.upperBound, region.lowerBound + 1) && record.upperBound > region.lowerBound
                let afterCut = cutToTheEnd && record.lowerBound >= region.lowerBound
                if !touched && !afterCut {
                    return "lost save \(truth[truth.count - ranges.count + index].transaction) at bytes \(record) of \(name), "
                        + "though the damage is at bytes \(region)"
                }
            }
        }
        for (minutes, got) in rangeReads {
            let expected = read.flatMap(\.readings).filter { (Double(minutes.lowerBound)...Double(minutes.upperBound)).contains($0) }.sorted()
            guard got.sorted() == expected else {
                return "a read of minutes \(minutes) returned \(got.sorted()), the saves hold \(expected)"
            }
        }
        return nil
    }

    /// Time-range reads whose bounds fall on segment edges (each segment but the last holds three
    /// minutes), so that a wrong time in an index or header shows.
    static let ranges: [ClosedRange<Int>] = [9...17, 12...12, 14...14, 15...15, 26...40, 36...36]

    /// Reads the whole log: its saves from history, its readings and their count, checked against
    /// each other, and the time-range reads of ``ranges``.
    static func readAll(_ settings: LogStoreConfiguration) throws -> (saves: [Save], ranges: [ClosedRange<Int>: [Double]]) {
        let (container, store) = try open(settings)
        let readings = try ModelContext(container).fetch(FetchDescriptor<Reading>())
        let byID = Dictionary(readings.map { ($0.persistentModelID, $0.value) }, uniquingKeysWith: { a, _ in a })
        let saves = try store.fetchHistory(HistoryDescriptor<LogTransaction>()).map { transaction in
            Save(transaction: transaction.transactionIdentifier,
                 readings: transaction.changes.compactMap { byID[$0.changedPersistentIdentifier] })
        }
        guard saves.flatMap(\.readings).count == readings.count else {
            throw Mismatch(description: "history names \(saves.flatMap(\.readings).count) readings, a fetch returns \(readings.count)")
        }
        let count = try ModelContext(container).fetchCount(FetchDescriptor<Reading>())
        guard count == readings.count else {
            throw Mismatch(description: "fetchCount says \(count), a fetch returns \(readings.count)")
        }
        var reads: [ClosedRange<Int>: [Double]] = [:]
        for minutes in ranges {
            let low = minute(minutes.lowerBound), high = minute(minutes.upperBound)
            reads[minutes] = try ModelContext(container).fetch(FetchDescriptor<Reading>(
                predicate: #Predicate { $0.timestamp >= low && $0.timestamp <= high })).map(\.value)
        }
        return (saves, reads)
    }

    struct Mismatch: Error, CustomStringConvertible { var description: String }

    /// Feeds `cases` damaged copies of a log (segments, index files, the identity file) to a
    /// read-only and a writable open, and returns the problems found and how many opens read.
    static func feed(cases: Int, seed: UInt64, sabotage: (([Save]) -> [Save])? = nil) throws -> (problems: [String], reads: Int, errors: Int) {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 700)
        do {
            // Ten sealed segments of one save each, then five saves in the segment being written.
            let (container, _) = try open(settings)
            try append(0..<30, perSave: 3, to: container)
            let (more, _) = try open(configuration(directory, segmentSize: 1 << 20))
            try append(30..<45, perSave: 3, to: more)
        }
        let truth = try readAll(settings).saves
        precondition(truth.count == 15)
        let pristine = try directoryContents(directory)
        let segments = pristine.keys.filter { $0.hasSuffix(".log") }.sorted()
        let lastSegment = segments.last.map { ($0, pristine[$0]!) }
        let files = pristine.keys.sorted()
        var generator = SeededGenerator(seed: seed)
        var problems: [String] = [], reads = 0, errors = 0
        for index in 0..<cases {
            let file = files[index % files.count]
            let (damaged, what) = FileMutation.mutate(pristine[file]!, using: &generator)
            var contents = pristine
            contents[file] = damaged
            try restore(directory, to: contents)
            for allowsSave in [false, true] {
                var settings = settings
                settings.allowsSave = allowsSave
                do {
                    var (saves, ranges) = try readAll(settings)
                    if let sabotage { saves = sabotage(saves) }
                    reads += 1
                    if let problem = verdict(read: saves, rangeReads: ranges, truth: truth, lastSegment: lastSegment,
                                             damagedFile: file, damaged: damaged) {
                        problems.append("case \(index), \(allowsSave ? "writable" : "read-only"): \(file) \(what): \(problem)")
                    }
                } catch is DataStoreError {
                    errors += 1
                } catch is HistoryError {
                    errors += 1
                } catch {
                    problems.append("case \(index): \(file) \(what): \(error)")
                }
            }
        }
        return (problems, reads, errors)
    }

    /// Each of the 32 single-bit flips in the length field of each record but the last of the
    /// segment being written: the open (read-only or writable) reports the damage and cuts nothing.
    /// Following the damaged length used to land between records, so every later record looked
    /// like a torn tail, and a writable open cut acknowledged saves off.
    @Test func aDamagedRecordLengthIsReportedNotCutAsATornTail() throws {
        let directory = try temporaryDirectory()
        let settings = configuration(directory, segmentSize: 1 << 20)
        do {
            let (container, _) = try open(settings)
            try append(0..<15, perSave: 3, to: container)
        }
        let name = try #require(try segmentFiles(directory).last)
        let segment = directory.appending(path: name)
        let pristine = try Data(contentsOf: segment)
        let records = Self.recordRanges(pristine)
        #expect(records.count == 5)
        var reported = 0
        for record in records.dropLast() {
            for bit in 0..<32 {
                var damaged = pristine
                damaged[record.lowerBound + bit / 8] ^= UInt8(1) << UInt8(bit % 8)
                try damaged.write(to: segment)
                for allowsSave in [false, true] {
                    var settings = settings
                    settings.allowsSave = allowsSave
                    do {
                        let (container, _) = try open(settings)
                        let count = try ModelContext(container).fetchCount(FetchDescriptor<Reading>())
                        Issue.record("bit \(bit) of the length at byte \(record.lowerBound), allowsSave \(allowsSave): read \(count) readings")
                    } catch let error as DataStoreError {
                        #expect(error.code == .corruptStore && error.message.contains(name), "\(error)")
                        reported += 1
                    }
                    #expect(try Data(contentsOf: segment) == damaged, "bit \(bit) at byte \(record.lowerBound): the segment is untouched")
                }
            }
        }
        #expect(reported == 4 * 32 * 2)
        // Control: the same log undamaged reads whole.
        try pristine.write(to: segment)
        #expect(try ModelContext(try open(settings).0).fetchCount(FetchDescriptor<Reading>()) == 15)
    }

    /// 1,000 damaged logs (`CORRUPT_INPUTS` for more), each opened read-only and writable.
    @Test func aDamagedLogReadsExactlyWhatWasSavedOrRefuses() throws {
        let cases = max(1_000, corruptInputCases() / 2)
        let (problems, reads, errors) = try Self.feed(cases: cases, seed: 1_111)
        print("LogStore damaged reads: \(cases) damaged logs, \(2 * cases) opens: \(reads) exact reads, \(errors) typed errors, "
              + "\(problems.count) problems")
        let clean = problems.isEmpty
        #expect(clean, "\(problems.count) problems, first: \(problems.prefix(12).joined(separator: "\n"))")
        #expect(reads > cases / 4 && errors > cases / 4, "both outcomes occur: \(reads) reads, \(errors) errors")
    }

    /// Negative control: a read that loses the newest save (without any damage near it) or
    /// alters one reading is caught.
    @Test func theCheckCatchesALostOrAlteredSave() throws {
        let lost = try Self.feed(cases: 40, seed: 7) { Array($0.dropLast()) }
        #expect(lost.problems.count >= lost.reads / 2, "a lost save is caught in \(lost.problems.count) of \(lost.reads) reads")
        let altered = try Self.feed(cases: 20, seed: 7) { saves in
            var saves = saves
            if !saves.isEmpty { saves[0].readings[0] += 1 }
            return saves
        }
        #expect(altered.problems.count == altered.reads, "an altered reading is caught in \(altered.problems.count) of \(altered.reads) reads")
    }
}
