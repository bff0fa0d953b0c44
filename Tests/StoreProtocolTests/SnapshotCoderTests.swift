import Foundation
import StoreProtocol
import StoreBuildingBlocks
import Testing

struct Nested: Codable, Equatable {
    enum Kind: String, Codable { case a, b }
    var kind: Kind
    var values: [Int8]
    var child: [String: Double]
    var optional: UInt64?
}

@Suite struct SnapshotCoderTests {
    @Test func integersKeepTheirWidthAndValue() throws {
        let encoder = SnapshotEncoder()
        #expect(try encoder.encode(UInt64.max) == .unsigned(.max))
        #expect(try encoder.encode(UInt64(7)) == .int(7))
        #expect(try encoder.encode(Int64.min) == .int(.min))
        #expect(try SnapshotDecoder().decode(UInt64.self, from: .unsigned(.max)) == .max)
        #expect(try SnapshotDecoder().decode(Int8.self, from: .double(-3)) == -3)
        #expect(try SnapshotDecoder().decode(Double.self, from: .int(3)) == 3)
    }

    @Test func valuesThatDoNotFitThrowTypeMismatch() {
        #expect(throws: DecodingError.self) { try SnapshotDecoder().decode(UInt8.self, from: .int(256)) }
        #expect(throws: DecodingError.self) { try SnapshotDecoder().decode(Int.self, from: .double(1.5)) }
        #expect(throws: DecodingError.self) { try SnapshotDecoder().decode(String.self, from: .int(1)) }
        #expect(throws: DecodingError.self) { try SnapshotDecoder().decode(UUID.self, from: .string("not a uuid")) }
    }

    @Test func nestedStructsEnumsAndOptionalsRoundTrip() throws {
        let value = Nested(kind: .b, values: [-1, 0, 127], child: ["x": 1.5], optional: nil)
        let encoded = try SnapshotEncoder().encode(value)
        guard case .object(let object) = encoded else { Issue.record("expected an object, saw \(encoded)"); return }
        #expect(object["kind"] == .string("b"))
        #expect(object["optional"] == nil, "a nil optional is absent, as encodeIfPresent leaves it")
        #expect(try SnapshotDecoder().decode(Nested.self, from: encoded) == value)
    }

    @Test func missingAttributeNamesTheKey() {
        do {
            _ = try SnapshotDecoder().decode(Nested.self, fromAttributes: ["kind": .string("a")])
            Issue.record("expected a throw")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "values")
        } catch {
            Issue.record("expected keyNotFound, got \(error)")
        }
    }

    @Test func numbersCompareAcrossCases() {
        #expect(SnapshotValue.int(3) == .double(3))
        #expect(SnapshotValue.int(3).hashValue == SnapshotValue.double(3).hashValue)
        #expect(SnapshotValue.int(3) != .double(3.5))
        #expect(SnapshotValue.string("3") != .int(3))
    }

    @Test(arguments: [
        SnapshotValue.null, .bool(true), .int(-5), .unsigned(.max), .double(2.5), .string("{\"$date\": 1}"),
        .date(Date(timeIntervalSince1970: 12.5)), .uuid(UUID()), .data(Data([1, 2, 3])),
        .decimal(Decimal(string: "1.25")!), .array([.int(1), .null]),
        .object(["a": .int(1), "b": .array([])]), .object(["$date": .int(1)]),
    ])
    func snapshotValuesRoundTripThroughJSON(_ value: SnapshotValue) throws {
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(SnapshotValue.self, from: data) == value)
    }

    @Test func uuidsParseLikeFoundation() throws {
        for _ in 0..<100 {
            let uuid = UUID()
            for text in [uuid.uuidString, uuid.uuidString.lowercased()] {
                let json = Data(#"{"$uuid":"\#(text)"}"#.utf8)
                #expect(try SnapshotJSON.parse(json) == .uuid(uuid))
            }
        }
        for bad in ["", "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8-C36C-495A-93FC-0C247A3E6E5FF", "E621E1F8xC36C-495A-93FC-0C247A3E6E5F",
                    "G621E1F8-C36C-495A-93FC-0C247A3E6E5F"] {
            #expect(throws: SnapshotJSON.SyntaxError.self, "\(bad)") { try SnapshotJSON.parse(Data(#"{"$uuid":"\#(bad)"}"#.utf8)) }
        }
    }

    @Test func corruptTaggedValuesThrow() {
        for json in [#"{"$uuid": "nope"}"#, #"{"$data": "%%%"}"#, #"{"$uint": "-1"}"#] {
            #expect(throws: DecodingError.self, "\(json)") {
                try JSONDecoder().decode(SnapshotValue.self, from: Data(json.utf8))
            }
        }
    }
}

@Suite struct ModelReflectionTests {
    @Test func historyKeyPathsEqualTheLiterals() {
        let update = DefaultHistoryUpdate<Trip>(
            changedPersistentIdentifier: PersistentIdentifier(entityName: "Trip", primaryKey: .uuid(UUID())),
            changeIdentifier: 0, transactionIdentifier: 1, updatedAttributeNames: ["destination", "endDate", "nope"])
        #expect(update.updatedAttributes.count == 2, "unknown names are left out")
        #expect(update.updated(\.destination))
        #expect(update.updated(\.endDate))
        #expect(!update.updated(\.name))
        let trip = Trip(name: "a", destination: "Oslo", startDate: .now, endDate: .now)
        #expect(trip[keyPath: update.updatedAttributes[0]] as? String == "Oslo", "the key path reads the value")
    }

    @Test func tombstonesReadByKeyPath() {
        let tombstone = HistoryTombstone<Trip>(values: ["name": .string("Oslo"), "startDate": .date(Date(timeIntervalSince1970: 0))])
        #expect(tombstone[\.name] == "Oslo")
        #expect(tombstone[\.startDate] == Date(timeIntervalSince1970: 0))
        #expect(tombstone[\.destination] == nil)
        #expect(tombstone.map(\.attributeName) == ["name", "startDate"])
    }

    @Test func schemaNamesMetadataAttributes() throws {
        let schema = Schema(Trip.self, LivingAccommodation.self)
        try schema.validate()
        let trip = try #require(schema.entity(named: "Trip"))
        #expect(trip.uniqueConstraints == [["name", "startDate", "endDate"]])
        #expect(trip.indices == [["name"], ["startDate"]])
        #expect(trip.preservedOnDeletion == ["name", "startDate", "endDate"])
        #expect(trip.attributeNames == ["id", "name", "destination", "startDate", "endDate", "accommodationID"])
    }
}
