import DataStores
import Foundation
import MemoryStore
import StoreProtocol
import Testing

/// Issue 11's promise, found while building indexes: numbers are equal only when they are the
/// same number. Equality through `Double` made distinct large integers equal, so two models with
/// unique `UInt64` values past 2^53 collided, and an insert of one updated the other.
@Suite struct SnapshotValueEqualityTests {
    @Test func largeIntegersAreEqualOnlyToThemselves() {
        #expect(SnapshotValue.unsigned(.max) != .unsigned(.max - 1))
        #expect(SnapshotValue.int(.max) != .int(.max - 1))
        #expect(SnapshotValue.int(1 << 53 + 1) != .double(Double(1 << 53)))
        #expect(SnapshotValue.unsigned(1 << 63) != .int(.max))
        #expect(SnapshotValue.int(3) == .double(3))
        #expect(SnapshotValue.unsigned(1 << 63) == .double(9_223_372_036_854_775_808))
        #expect(SnapshotValue.double(-0.0) == .int(0))
        #expect(SnapshotValue.double(.nan) != .double(.nan))
        // Equal values hash alike.
        #expect(SnapshotValue.int(3).hashValue == SnapshotValue.double(3).hashValue)
    }

    @Model final class Counter {
        @Attribute(.unique) var serial: UInt64
        init(_ serial: UInt64) { self.serial = serial }
    }

    @Test func uniqueLargeUnsignedValuesDoNotCollide() throws {
        let container = try ModelContainer(for: Counter.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        context.insert(Counter(.max))
        context.insert(Counter(.max - 1))
        try context.save()
        let serials = try ModelContext(container).fetch(FetchDescriptor<Counter>()).map(\.serial).sorted()
        #expect(serials == [.max - 1, .max])
    }
}
