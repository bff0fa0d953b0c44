import Foundation
@testable import StoreProtocol
import Testing

/// `ModelCoding`, the overloads the `@Model` expansion calls, stores every attribute type exactly
/// as the `Codable` path (`SnapshotEncoder`) does, so that a store written by either reads the
/// same through the other, and reads each back.
@Suite struct ModelCodingTests {
    enum Mood: String, Codable, Equatable { case calm, busy }
    enum Level: Int { case low = 1, high = 2 }                 // raw value, not Codable
    struct Address: Codable, Equatable { var street: String; var number: Int?; var tags: [String] }
    enum Pin: Codable, Equatable { case home, at(Double, Double) }

    /// `encode` gives what SnapshotEncoder gives, case for case, and `decode` reads it back.
    private func same<V: Codable & Equatable>(
        _ value: V, _ encode: (V) throws -> SnapshotValue, _ decode: (SnapshotValue?) throws -> V,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let direct = try encode(value)
        let codable = try SnapshotEncoder().encode(value)
        #expect(direct == codable && "\(direct)" == "\(codable)", "\(V.self): \(direct) vs \(codable)", sourceLocation: sourceLocation)
        #expect(try decode(direct) == value, sourceLocation: sourceLocation)
        #expect(try SnapshotDecoder().decode(V.self, from: direct) == value, sourceLocation: sourceLocation)
    }

    @Test func everyAttributeTypeIsStoredAsCodableStoresIt() throws {
        try same(Int.min, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Int8.min, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Int16.max, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Int32.min, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Int64.max, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(UInt.max, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(UInt8.max, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(UInt16.max, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(UInt32.max, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(UInt64.max, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(UInt64(7), { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(-0.1, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Float(0.1), { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(true, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same("fjord", { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Date(timeIntervalSince1970: 1.5), { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Data([0, 255]), { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(UUID(), { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(URL(string: "https://example.com/a?b=c")!, { try ModelCoding.encode($0) },
                 { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Decimal(string: "12.345")!, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same([1, 2, 3], { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same([1, nil, 3] as [Int?], { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(["a": 1.5, "b": -2], { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(["a": [1], "b": []], { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Mood.busy, { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same([Mood.busy, .calm], { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Address(street: "Bryggen", number: nil, tags: ["old"]), { try ModelCoding.encode($0) },
                 { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same([Address(street: "a", number: 1, tags: [])], { try ModelCoding.encode($0) },
                 { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Pin.at(60.4, 5.3), { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same([1: "one"], { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
        try same(Set(["x"]), { try ModelCoding.encode($0) }, { try ModelCoding.decode($0, attribute: "a", of: "E") })
    }

    @Test func aRawValueEnumIsStoredAsItsRawValue() throws {
        #expect(try ModelCoding.encode(Level.high) == .int(2))
        let level: Level = try ModelCoding.decode(.int(1), attribute: "level", of: "Trip")
        #expect(level == .low)
        do {
            let _: Level = try ModelCoding.decode(.int(9), attribute: "level", of: "Trip")
            Issue.record("9 decoded as a Level")
        } catch let error as DataStoreError {
            #expect(error.code == .undecodableSnapshot && error.message.contains("Trip.level"), "\(error.message)")
        }
        let none: Level? = try ModelCoding.decode(nil, attribute: "level", of: "Trip")
        #expect(none == nil)
        #expect(try ModelCoding.encode(Level?.none) == nil)
    }

    /// An optional that is nil leaves the attribute out (as synthesized `encodeIfPresent` does) and
    /// reads back from an absent value or null; a non-optional one that is absent is an error
    /// naming it.
    @Test func anOptionalIsLeftOutWhenNil() throws {
        #expect(try ModelCoding.encode(Int?.none) == nil)
        #expect(try ModelCoding.encode(Int?.some(3)) == .int(3))
        #expect(try ModelCoding.encode(Address?.none) == nil)
        #expect(try ModelCoding.encode(Mood?.some(.calm)) == .string("calm"))
        let absent: Int? = try ModelCoding.decode(nil, attribute: "a", of: "E")
        let null: Int? = try ModelCoding.decode(.null, attribute: "a", of: "E")
        let address: Address? = try ModelCoding.decode(nil, attribute: "a", of: "E")
        #expect(absent == nil && null == nil && address == nil)
        do {
            let _: Int = try ModelCoding.decode(nil, attribute: "nights", of: "Trip")
            Issue.record("an absent Int decoded")
        } catch let error as DataStoreError {
            #expect(error.code == .undecodableSnapshot && error.message.contains("Trip.nights"), "\(error.message)")
        }
        do {
            let _: Address = try ModelCoding.decode(.int(1), attribute: "address", of: "Trip")
            Issue.record("an Int decoded as a struct")
        } catch let error as DataStoreError {
            #expect(error.code == .undecodableSnapshot && error.message.contains("Trip.address"), "\(error.message)")
        }
    }

    /// What SnapshotDecoder accepts, ModelCoding accepts too: numbers as dates, strings as UUIDs,
    /// integral doubles as integers; and it refuses what does not fit.
    @Test func decodingAcceptsWhatTheCodablePathAccepts() throws {
        let date: Date = try ModelCoding.decode(.int(10), attribute: "a", of: "E")
        let id: UUID = try ModelCoding.decode(.string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), attribute: "a", of: "E")
        let int: Int8 = try ModelCoding.decode(.double(5), attribute: "a", of: "E")
        let decimal: Decimal = try ModelCoding.decode(.int(5), attribute: "a", of: "E")
        #expect(date == Date(timeIntervalSince1970: 10) && id.uuidString.hasPrefix("E621") && int == 5 && decimal == 5)
        #expect(throws: DataStoreError.undecodableSnapshot) { let _: Int8 = try ModelCoding.decode(.int(300), attribute: "a", of: "E") }
        #expect(throws: DataStoreError.undecodableSnapshot) { let _: Bool = try ModelCoding.decode(.int(1), attribute: "a", of: "E") }
    }
}
