import Foundation
@testable import LogStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 30: a UUID id is hashed as its JSON is made, without an array of the JSON. The hash is
/// persisted (sealed segments' Bloom filters), so it must stay the one the written JSON gives.
@Suite struct IdentifierHashFastPathTests {
    @Test func uuidIdsHashAsTheirWrittenJSON() {
        var generator = SeededGenerator(seed: 35)
        let uuids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
            + (0..<2_000).map { _ in UUID(uuid: generator.uuidBytes()) }
        for (index, uuid) in uuids.enumerated() {
            let entity = ["Trip", "", "Café", "e\u{301}"][index % 4]
            #expect(IdentifierHash.of(entity, .uuid(uuid)) == IdentifierHash.written(entity, .uuid(uuid)), "\(entity) \(uuid)")
        }
        // Different ids, different hashes (a fast path that ignored the id would pass the above
        // only if it also ignored it in `written`).
        #expect(Set(uuids.map { IdentifierHash.of("Trip", .uuid($0)) }).count == uuids.count)
    }

    /// A hash written before issue 30, for a fixed id: sealed segments' filters hold such hashes.
    @Test func aUUIDIdHashesAsBefore() {
        let uuid = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array("Trip".utf8) + [0] + Array(#"{"$uuid":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}"#.utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        #expect(IdentifierHash.of("Trip", .uuid(uuid)) == hash)
    }
}
