import Foundation
import LogStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 11: a segment that got shorter than what an open instance already read from it (a file
/// restored from an older copy, or cut) was read short without a word, and the instance's next
/// save numbered its record after the ones that had vanished, leaving a gap that made every later
/// open refuse the log.
@Suite struct ShrunkSegmentTests {
    @Test func aSegmentCutBelowWhatWasReadIsReportedAndNotAppendedTo() throws {
        for sealed in [false, true] {
            let directory = try temporaryDirectory()
            let settings = configuration(directory, segmentSize: sealed ? 2_000 : 1 << 20)
            let (container, _) = try open(settings)
            try append(0..<30, perSave: 3, to: container)
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 0 })) == 30)
            let name = try #require(try segmentFiles(directory).first)
            let segment = directory.appending(path: name)
            let data = try Data(contentsOf: segment)
            let firstRecord = 24 + Int(data[0]) + Int(data[1]) << 8 + Int(data[2]) << 16
            try data.prefix(firstRecord).write(to: segment)   // only the first save is left

            #expect(throws: DataStoreError.self, "sealed \(sealed): a read") {
                try ModelContext(container).fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 0 }))
            }
            if sealed {
                // A save goes to another segment (no gap there); a new instance refuses the log.
                #expect(throws: DataStoreError.self) { try open(settings) }
            } else {
                let context = ModelContext(container)
                context.insert(Reading(sensor: "s", timestamp: minute(99), value: 99))
                #expect(throws: DataStoreError.self, "a save") { try context.save() }
                #expect(try Data(contentsOf: segment) == data.prefix(firstRecord), "nothing was appended")
            }
        }
    }
}
