import Foundation
@testable import StoreProtocol
import Testing

/// An identifier hashes its primary key alone and converts common ids by their metatype (issue
/// 30, for the cost of each identity-map lookup): what it names must stay exactly what it named.
@Suite struct PersistentIdentifierTests {
    @Test func identifiersOfTwoEntitiesWithOneKeyStayApart() {
        let key = SnapshotValue.uuid(UUID())
        let trip = PersistentIdentifier(entityName: "Trip", primaryKey: key)
        let item = PersistentIdentifier(entityName: "Item", primaryKey: key)
        #expect(trip != item)
        let map = [trip: 1, item: 2]
        #expect(map.count == 2 && map[trip] == 1 && map[item] == 2)
        #expect(map[PersistentIdentifier(entityName: "Trip", primaryKey: key)] == 1)
    }

    @Test func idsConvertToTheValuesTheyAlwaysHad() {
        let uuid = UUID()
        #expect(PersistentIdentifier.primaryKey(uuid) == .uuid(uuid))
        #expect(PersistentIdentifier.primaryKey("trip-7") == .string("trip-7"))
        #expect(PersistentIdentifier.primaryKey(7) == .int(7))
        #expect(PersistentIdentifier.primaryKey(Int.min) == .int(Int64.min))
        // Other types go through the snapshot encoder, as before.
        #expect(PersistentIdentifier.primaryKey(Int64(-3)) == .int(-3))
        #expect(PersistentIdentifier.primaryKey(UInt8(9)) == .int(9))
        #expect(PersistentIdentifier.primaryKey(uuid.uuidString.lowercased()) == .string(uuid.uuidString.lowercased()))
    }
}
