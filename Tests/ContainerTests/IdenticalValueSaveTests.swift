import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// A value set to one that `==` finds equal but that reads back otherwise (-0 for 0, a string's
/// canonically equivalent other spelling) is a change: the save stores it, records it in
/// history, and a fresh context and the reopened store read it back bit for bit. Before, the save
/// compared with `==`, stored nothing, and the old bytes came back (found by an adversary,
/// 2026-11-29). A NaN set to the same NaN is no change.
@Suite struct IdenticalValueSaveTests {
    @Model final class Reading {
        var label: String
        var value: Double
        var at: Date
        init(label: String, value: Double, at: Date) { self.label = label; self.value = value; self.at = at }
    }

    enum Kind: CaseIterable { case memory, json }

    /// A change `==` does not see: the value before and after.
    enum Change: CaseIterable { case zeroToNegativeZero, negativeZeroToZero, decomposedToComposed, composedToDecomposed, dateZeroSign }

    struct Values: Equatable {
        var label: [UInt8], value: UInt64, at: UInt64
        init(_ reading: Reading) {
            label = Array(reading.label.utf8)
            value = reading.value.bitPattern
            at = reading.at.timeIntervalSinceReferenceDate.bitPattern
        }
    }

    static func before(_ change: Change) -> (String, Double, Date) {
        switch change {
        case .zeroToNegativeZero: ("a", 0.0, Date(timeIntervalSinceReferenceDate: 1))
        case .negativeZeroToZero: ("a", -0.0, Date(timeIntervalSinceReferenceDate: 1))
        case .decomposedToComposed: ("e\u{301}", 1, Date(timeIntervalSinceReferenceDate: 1))
        case .composedToDecomposed: ("\u{e9}", 1, Date(timeIntervalSinceReferenceDate: 1))
        case .dateZeroSign: ("a", 1, Date(timeIntervalSinceReferenceDate: 0.0))
        }
    }

    static func apply(_ change: Change, to reading: Reading) {
        switch change {
        case .zeroToNegativeZero: reading.value = -0.0
        case .negativeZeroToZero: reading.value = 0.0
        case .decomposedToComposed: reading.label = "\u{e9}"
        case .composedToDecomposed: reading.label = "e\u{301}"
        case .dateZeroSign: reading.at = Date(timeIntervalSinceReferenceDate: -0.0)
        }
    }

    @Test(arguments: Kind.allCases)
    func aValueEqualButNotIdenticalIsSavedAndReadBackExactly(kind: Kind) throws {
        for change in Change.allCases {
            let url = try temporaryDirectory().appending(path: "readings.json")
            func open() throws -> ModelContainer {
                switch kind {
                case .memory: try ModelContainer(for: Reading.self, configurations: MemoryStoreConfiguration())
                case .json: try ModelContainer(for: Reading.self, configurations: JSONStoreConfiguration(url: url))
                }
            }
            let container = try open()
            let context = ModelContext(container)
            let (label, value, at) = Self.before(change)
            let reading = Reading(label: label, value: value, at: at)
            context.insert(reading)
            try context.save()
            let transactionsBefore = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
            Self.apply(change, to: reading)
            let expected = Values(reading)
            #expect(expected != Values(Reading(label: label, value: value, at: at)), "\(change): the change must change the bits")
            try context.save()
            #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == transactionsBefore + 1,
                    "\(kind) \(change): the save is in history")
            let fresh = try #require(try ModelContext(container).fetch(FetchDescriptor<Reading>()).first)
            #expect(Values(fresh) == expected, "\(kind) \(change): a fresh context reads the new bits")
            if kind == .json {
                let reopened = try #require(try ModelContext(try open()).fetch(FetchDescriptor<Reading>()).first)
                #expect(Values(reopened) == expected, "\(kind) \(change): the reopened store reads the new bits")
            }
        }
    }

    /// A NaN set to the same NaN changes nothing and records nothing; before, `==` called it a
    /// change at every save.
    @Test(arguments: Kind.allCases)
    func theSameNaNIsNoChange(kind: Kind) throws {
        let container: ModelContainer = switch kind {
        case .memory: try ModelContainer(for: Reading.self, configurations: MemoryStoreConfiguration())
        case .json: try ModelContainer(for: Reading.self, configurations: JSONStoreConfiguration(
            url: try temporaryDirectory().appending(path: "readings.json")))
        }
        let context = ModelContext(container)
        let reading = Reading(label: "n", value: .nan, at: .now)
        context.insert(reading)
        try context.save()
        let transactionsBefore = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
        reading.value = .nan
        try context.save()
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == transactionsBefore)
    }
}
