import Foundation
import StoreProtocol

/// The models the suite stores. Backends need nothing from them but a schema that holds them.
public enum ConformanceModels {
    /// Every model the suite uses.
    public static var types: [any PersistentModel.Type] {
        [SuiteTrip.self, SuiteAllTypes.self, SuiteReading.self, SuiteMember.self, SuiteQueryRow.self,
         SuiteVoyage.self, SuiteBucketItem.self, SuiteAccommodation.self, SuiteGuide.self, SuiteTag.self]
    }
    public static var schema: Schema { Schema(types) }
}

/// A trip with a unique constraint and preserved-on-deletion attributes.
public final class SuiteTrip: PersistentModel {
    public var id = UUID()
    public var name: String
    public var destination: String
    public var startDate: Date
    public var rating: Int
    public var notes: String?

    public init(name: String, destination: String = "Nowhere", startDate: Date = SuiteTrip.day(0), rating: Int = 0, notes: String? = nil) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.rating = rating
        self.notes = notes
    }

    /// Midnight UTC of day `n` after 2026-01-01.
    public static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_767_225_600 + Double(n) * 86_400) }

    public static let schemaMetadata = SchemaMetadata<SuiteTrip>(
        attributes: [\.id, \.name, \.destination, \.startDate, \.rating, \.notes],
        unique: [[\.name, \.startDate]],
        indexed: [[\.startDate]],
        preservedOnDeletion: [\.name, \.startDate])
}

/// A time-series reading, the kind of model an insert-only store holds.
/// A model whose unique constraint is an optional attribute: `nil` never collides.
public final class SuiteMember: PersistentModel {
    public var id = UUID()
    public var name: String
    public var email: String?

    public init(name: String, email: String? = nil) {
        self.name = name
        self.email = email
    }

    public static let schemaMetadata = SchemaMetadata<SuiteMember>(
        attributes: [\.id, \.name, \.email],
        unique: [[\.email]])
}

public final class SuiteReading: PersistentModel {
    public var id = UUID()
    public var sensor: String
    public var timestamp: Date
    public var value: Double

    public init(sensor: String, timestamp: Date, value: Double) {
        self.sensor = sensor
        self.timestamp = timestamp
        self.value = value
    }

    public static let schemaMetadata = SchemaMetadata<SuiteReading>(
        attributes: [\.id, \.sensor, \.timestamp, \.value])
}

/// One attribute of every kind the snapshot coder supports.
public final class SuiteAllTypes: PersistentModel {
    public struct Address: Codable, Equatable, Sendable {
        public var street: String
        public var number: Int
        public var geo: [Double]
    }
    public enum Mood: String, Codable, Sendable { case calm, excited }
    public enum Priority: Int, Codable, Sendable { case low = 1, high = 9 }

    public var id = UUID()
    public var string = "Grüße, 世界 🧭"
    public var int = -42
    public var int8: Int8 = -8
    public var int16: Int16 = -16_000
    public var int32: Int32 = -2_000_000_000
    public var int64: Int64 = .min
    public var uint: UInt = 42
    public var uint8: UInt8 = 255
    public var uint16: UInt16 = 65_535
    public var uint32: UInt32 = 4_000_000_000
    public var uint64: UInt64 = .max
    public var double = 3.141592653589793
    public var float: Float = 1.5
    public var bool = true
    public var date = Date(timeIntervalSince1970: 1_767_225_600.25)
    public var uuid = UUID()
    public var data = Data([0, 1, 2, 254, 255])
    public var url = URL(string: "https://example.com/a%20b?q=1")!
    public var decimal = Decimal(string: "12345.6789")!
    public var optionalString: String? = "present"
    public var optionalInt: Int?
    public var ints = [1, 2, 3]
    public var strings = ["a", "", "c"]
    public var address = Address(street: "Laugavegur", number: 1, geo: [64.1, -21.9])
    public var mood = Mood.excited
    public var priority = Priority.high

    public init() {}

    /// Whether every attribute equals `other`'s (models themselves compare by identity).
    public func sameValues(as other: SuiteAllTypes) -> [String] {
        var differing: [String] = []
        func compare<V: Equatable>(_ name: String, _ keyPath: KeyPath<SuiteAllTypes, V>) {
            if self[keyPath: keyPath] != other[keyPath: keyPath] { differing.append("\(name): \(self[keyPath: keyPath]) vs \(other[keyPath: keyPath])") }
        }
        compare("id", \.id); compare("string", \.string); compare("int", \.int); compare("int8", \.int8)
        compare("int16", \.int16); compare("int32", \.int32); compare("int64", \.int64); compare("uint", \.uint)
        compare("uint8", \.uint8); compare("uint16", \.uint16); compare("uint32", \.uint32); compare("uint64", \.uint64)
        compare("double", \.double); compare("float", \.float); compare("bool", \.bool); compare("date", \.date)
        compare("uuid", \.uuid); compare("data", \.data); compare("url", \.url); compare("decimal", \.decimal)
        compare("optionalString", \.optionalString); compare("optionalInt", \.optionalInt); compare("ints", \.ints)
        compare("strings", \.strings); compare("address", \.address); compare("mood", \.mood); compare("priority", \.priority)
        return differing
    }

    public static let schemaMetadata = SchemaMetadata<SuiteAllTypes>(
        attributes: [\.id, \.string, \.int, \.int8, \.int16, \.int32, \.int64, \.uint, \.uint8, \.uint16,
            \.uint32, \.uint64, \.double, \.float, \.bool, \.date, \.uuid, \.data, \.url, \.decimal,
            \.optionalString, \.optionalInt, \.ints, \.strings, \.address, \.mood, \.priority])
}

/// A row for the differential query cases: every kind of value a translated query compares,
/// optional and not, with values chosen to tie, to be `nil`, and to differ only by Unicode
/// normalization, sign of zero, NaN or the last bit of a large integer.
public final class SuiteQueryRow: PersistentModel {
    public var id = UUID()
    public var name: String
    public var nickname: String?
    public var count: Int
    public var rank: Int?
    public var score: Double
    public var optionalScore: Double?
    public var ratio: Float
    public var big: UInt64
    public var small: Int8
    public var when: Date
    public var due: Date?
    public var flag: Bool
    public var maybe: Bool?
    public var token: UUID?
    public var mood: SuiteAllTypes.Mood

    public init(
        name: String, nickname: String?, count: Int, rank: Int?, score: Double, optionalScore: Double?, ratio: Float,
        big: UInt64, small: Int8, when: Date, due: Date?, flag: Bool, maybe: Bool?, token: UUID?, mood: SuiteAllTypes.Mood
    ) {
        self.name = name
        self.nickname = nickname
        self.count = count
        self.rank = rank
        self.score = score
        self.optionalScore = optionalScore
        self.ratio = ratio
        self.big = big
        self.small = small
        self.when = when
        self.due = due
        self.flag = flag
        self.maybe = maybe
        self.token = token
        self.mood = mood
    }

    public static let schemaMetadata = SchemaMetadata<SuiteQueryRow>(
        attributes: [\.id, \.name, \.nickname, \.count, \.rank, \.score, \.optionalScore, \.ratio, \.big, \.small,
            \.when, \.due, \.flag, \.maybe, \.token, \.mood],
        // Every attribute a query can compare is indexed, so that the query cases check a
        // store's indexes on every type.
        indexed: [[\.name], [\.count], [\.nickname], [\.rank], [\.score], [\.optionalScore], [\.ratio], [\.big],
                  [\.small], [\.when], [\.due], [\.flag], [\.maybe], [\.token]])
}
