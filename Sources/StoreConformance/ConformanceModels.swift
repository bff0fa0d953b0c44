import DataStores

/// The models the suite stores. Backends need nothing from them but a schema that holds them.
public enum ConformanceModels {
    /// Every model the suite uses.
    public static var types: [any PersistentModel.Type] {
        [SuiteTrip.self, SuiteAllTypes.self, SuiteReading.self, SuiteMember.self, SuiteQueryRow.self,
         SuiteVoyage.self, SuiteBucketItem.self, SuiteAccommodation.self, SuiteGuide.self, SuiteTag.self,
         SuiteExpedition.self, SuiteStop.self]
    }
    /// A schema of all of ``types``: what the suite's containers open their stores with.
    public static var schema: Schema { Schema(types) }
}

/// A trip with a unique constraint and preserved-on-deletion attributes: the model of most
/// cases (CRUD, fetching, saving and upserts, history and tokens, persistence, scale).
@Model
public final class SuiteTrip {
    #Unique<SuiteTrip>([\.name, \.startDate])
    #Index<SuiteTrip>([\.startDate])
    public var id = UUID()
    /// With ``startDate``, the unique constraint that turns a colliding insert into an update;
    /// preserved in tombstones.
    @Attribute(.preserveValueOnDeletion) public var name: String
    /// A plain attribute, neither unique nor preserved: what updates change and tombstones leave
    /// out.
    public var destination: String
    /// The other half of the unique constraint; indexed, and preserved in tombstones.
    @Attribute(.preserveValueOnDeletion) public var startDate: Date
    /// The integer that predicates, sorts, paging and batch deletes use.
    public var rating: Int
    /// An optional attribute: set to `nil` and saved, matched by `== nil`, force-unwrapped by a
    /// predicate that must throw.
    public var notes: String?

    /// Makes a trip with a new `id`; only `name` is required (the rest default to "Nowhere",
    /// day 0, a rating of 0 and no notes).
    public init(name: String, destination: String = "Nowhere", startDate: Date = SuiteTrip.day(0), rating: Int = 0, notes: String? = nil) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.rating = rating
        self.notes = notes
    }

    /// Midnight UTC of day `n` after 2026-01-01 (day 0 is 2026-01-01 itself).
    public static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_767_225_600 + Double(n) * 86_400) }
}

/// A model whose unique constraint is an optional attribute: `nil` never collides (the upsert
/// case `nilNeverCollidesOnAUniqueConstraint`).
@Model
public final class SuiteMember {
    public var id = UUID()
    /// What the case lists to see which members were stored.
    public var name: String
    /// The unique attribute: members without one are all stored, two with the same one are one.
    @Attribute(.unique) public var email: String?

    /// Makes a member with a new `id`, without an email unless given.
    public init(name: String, email: String? = nil) {
        self.name = name
        self.email = email
    }
}

/// A time-series reading, the kind of model an insert-only store holds: the multi-store cases
/// keep readings in one store and ``SuiteTrip``s in another, under one container and one token.
@Model
public final class SuiteReading {
    public var id = UUID()
    /// The sensor that took the reading.
    public var sensor: String
    /// When the reading was taken.
    public var timestamp: Date
    /// The value read.
    public var value: Double

    /// Makes a reading with a new `id` from its values, as given.
    public init(sensor: String, timestamp: Date, value: Double) {
        self.sensor = sensor
        self.timestamp = timestamp
        self.value = value
    }
}

/// One attribute of every kind the snapshot coder supports, each with a default value chosen to
/// be hard to keep exactly: the `types` cases store it, reopen it, fetch it and roll it back,
/// and compare every attribute (``sameValues(as:)``).
@Model
public final class SuiteAllTypes {
    /// A nested struct attribute, stored as an object.
    public struct Address: Codable, Equatable, Sendable {
        /// A string inside the nested value.
        public var street: String
        /// An integer inside the nested value.
        public var number: Int
        /// An array inside the nested value.
        public var geo: [Double]
    }
    /// An enum attribute with `String` raw values, stored as its raw value.
    public enum Mood: String, Codable, Sendable {
        /// The other value, which rollback and the query cases use.
        case calm
        /// The default value.
        case excited
    }
    /// An enum attribute with `Int` raw values, stored as its raw value.
    public enum Priority: Int, Codable, Sendable {
        /// Raw value 1.
        case low = 1
        /// Raw value 9, the default.
        case high = 9
    }

    public var id = UUID()
    /// A `String` with non-ASCII letters, CJK and an emoji.
    public var string = "Grüße, 世界 🧭"
    /// A negative `Int`.
    public var int = -42
    /// An `Int8`.
    public var int8: Int8 = -8
    /// An `Int16`.
    public var int16: Int16 = -16_000
    /// An `Int32` near its minimum.
    public var int32: Int32 = -2_000_000_000
    /// `Int64.min`.
    public var int64: Int64 = .min
    /// A `UInt`.
    public var uint: UInt = 42
    /// `UInt8.max`.
    public var uint8: UInt8 = 255
    /// `UInt16.max`.
    public var uint16: UInt16 = 65_535
    /// A `UInt32` above `Int32.max`.
    public var uint32: UInt32 = 4_000_000_000
    /// `UInt64.max`, above `Int64.max`: the one value stored as `SnapshotValue.unsigned`.
    public var uint64: UInt64 = .max
    /// π to the last bit of a `Double`.
    public var double = 3.141592653589793
    /// A `Float`.
    public var float: Float = 1.5
    /// A `Bool`.
    public var bool = true
    /// A `Date` with a fraction of a second.
    public var date = Date(timeIntervalSince1970: 1_767_225_600.25)
    /// A `UUID` that is not the `id`: a predicate on it must not be taken for a lookup by id.
    public var uuid = UUID()
    /// `Data` with bytes 0 and 255.
    public var data = Data([0, 1, 2, 254, 255])
    /// A `URL` with an escaped space and a query.
    public var url = URL(string: "https://example.com/a%20b?q=1")!
    /// A `Decimal`, which must not pass through `Double`.
    public var decimal = Decimal(string: "12345.6789")!
    /// An optional holding a value (a case sets it to `nil`).
    public var optionalString: String? = "present"
    /// An optional that is `nil`.
    public var optionalInt: Int?
    /// An array of integers.
    public var ints = [1, 2, 3]
    /// An array of strings, one of them empty.
    public var strings = ["a", "", "c"]
    /// A nested struct.
    public var address = Address(street: "Laugavegur", number: 1, geo: [64.1, -21.9])
    /// A `String`-backed enum.
    public var mood = Mood.excited
    /// An `Int`-backed enum.
    public var priority = Priority.high

    /// Makes a model holding every default value, with a new `id`.
    public init() {}

    /// The attributes whose values differ from `other`'s, each as "name: value vs value"; empty
    /// when every attribute, `id` included, is equal (models themselves compare by identity).
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
}

/// A row for the differential query cases: every kind of value a translated query compares,
/// optional and not, with values chosen to tie, to be `nil`, and to differ only by Unicode
/// normalization, sign of zero, NaN or the last bit of a large integer.
@Model
public final class SuiteQueryRow {
    // Every attribute a query can compare is indexed, so that the query cases check a store's
    // indexes on every type.
    #Index<SuiteQueryRow>([\.name], [\.count], [\.nickname], [\.rank], [\.score], [\.optionalScore], [\.ratio], [\.big],
                          [\.small], [\.when], [\.due], [\.flag], [\.maybe], [\.token])
    public var id = UUID()
    /// A `String` that differs only by Unicode normalization, case or `ß`/`ss` from others.
    public var name: String
    /// An optional `String`, `nil` in about a third of the rows.
    public var nickname: String?
    /// An `Int` with `Int.min`, `Int.max` and 2^53 ± 1, which `Double` cannot tell apart.
    public var count: Int
    /// An optional `Int`, force-unwrapped by predicates that must throw where it is `nil`.
    public var rank: Int?
    /// A `Double` with `-0.0` and `0.0`, infinities and NaN.
    public var score: Double
    /// An optional `Double` with the same values as ``score``.
    public var optionalScore: Double?
    /// A `Float` with `-0.0`, NaN, 2^24 and `0.1` (which is not the `Double` `0.1`).
    public var ratio: Float
    /// A `UInt64` with values above `Int64.max` that differ in the last bit.
    public var big: UInt64
    /// An `Int8` with its extremes.
    public var small: Int8
    /// A `Date` with ties and half a second apart.
    public var when: Date
    /// An optional `Date`.
    public var due: Date?
    /// A `Bool`, used as a condition on its own.
    public var flag: Bool
    /// An optional `Bool`.
    public var maybe: Bool?
    /// An optional `UUID`.
    public var token: UUID?
    /// An enum, which a query does not translate: predicates on it are decided on models.
    public var mood: SuiteAllTypes.Mood

    /// Makes a row with a new `id` from its values, as given.
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
}
