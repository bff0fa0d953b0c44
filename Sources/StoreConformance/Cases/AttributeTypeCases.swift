import DataStores

/// An `@Model` class holding every attribute type SwiftData stores, each with values chosen to
/// be hard to keep exactly: integers of every width at both extremes, a `Date` with nanoseconds,
/// every byte value, a 38-digit `Decimal`, strings in both Unicode normalization forms, optionals
/// with and without a value, arrays, a dictionary, enums with raw values and with associated
/// values, and a nested `Codable` struct. `AttributeTypeCases` save it, reopen the store and
/// compare every value exactly (``exactDifferences(from:)``).
@Model
public final class SuiteEveryType {
    /// A `Codable` struct stored as a composite attribute: nested, with an optional and an array.
    public struct Itinerary: Codable, Equatable, Sendable {
        /// A string inside the composite value.
        public var title: String
        /// A nested struct.
        public var firstLeg: Leg
        /// An array inside the composite value.
        public var legs: [Leg]
        /// An optional inside the composite value, `nil` by default.
        public var note: String?
    }
    /// A leg of an ``Itinerary``: a struct inside a struct, with an optional.
    public struct Leg: Codable, Equatable, Sendable {
        /// Where the leg goes.
        public var to: String
        /// Its length, `nil` when unknown.
        public var kilometres: Int?
    }
    /// An enum with `String` raw values, stored as its raw value.
    public enum Status: String, Codable, Sendable {
        /// The default.
        case planned
        /// A raw value that is not the case's name.
        case done = "DONE ✓"
    }
    /// An enum with `Int` raw values, stored as its raw value.
    public enum Level: Int, Codable, Sendable {
        /// A negative raw value.
        case low = -1
        /// A raw value beyond 32 bits.
        case high = 1_099_511_627_776
    }
    /// A `Codable` enum with associated values, stored as a composite attribute.
    public enum Transport: Codable, Equatable, Sendable {
        /// No associated value.
        case walk
        /// Labelled associated values.
        case train(line: String, car: Int)
        /// An unlabelled value and an optional array.
        case flight(String, seats: [Int]?)
    }

    /// The model's own id: the case finds each stored model by it.
    public var id = UUID()
    /// Each integer width at its minimum and maximum (`UInt`'s minimum too): a store that
    /// passes integers through `Double` or a signed 64-bit column changes the extremes.
    public var int8Min: Int8 = .min
    /// `Int8.max`.
    public var int8Max: Int8 = .max
    /// `Int16.min`.
    public var int16Min: Int16 = .min
    /// `Int16.max`.
    public var int16Max: Int16 = .max
    /// `Int32.min`.
    public var int32Min: Int32 = .min
    /// `Int32.max`.
    public var int32Max: Int32 = .max
    /// `Int64.min`.
    public var int64Min: Int64 = .min
    /// `Int64.max`.
    public var int64Max: Int64 = .max
    /// `Int.min`.
    public var intMin: Int = .min
    /// `Int.max`.
    public var intMax: Int = .max
    /// `UInt8.max`.
    public var uint8Max: UInt8 = .max
    /// `UInt16.max`.
    public var uint16Max: UInt16 = .max
    /// `UInt32.max`.
    public var uint32Max: UInt32 = .max
    /// `UInt64.max`.
    public var uint64Max: UInt64 = .max
    /// `UInt.max`.
    public var uintMax: UInt = .max
    /// `UInt.min`.
    public var uintMin: UInt = .min
    /// The `Double` nearest π, to its last bit; `AttributeTypeCases` set it to the edge values
    /// (`-0.0`, subnormals, infinities, NaN) one at a time.
    public var double = Double.pi
    /// `0.1`, which no binary fraction holds exactly.
    public var doubleTenth = 0.1
    /// The largest finite `Double`.
    public var doubleMax = Double.greatestFiniteMagnitude
    /// A `Float` that is not the `Double` `0.1`; set to the edge values like ``double``.
    public var float: Float = 0.1
    /// Both `Bool` values.
    public var isTrue = true
    /// `false`.
    public var isFalse = false
    /// The empty string, which is not `nil`.
    public var emptyString = ""
    /// Precomposed `é`, then decomposed `e` + U+0301: Swift's `==` finds them equal, the case does not.
    public var unicodeString = "Grüße, 世界 🧭 caf\u{E9} cafe\u{301}"
    /// A plain string, set to the edge strings (a NUL inside, a lone combining mark) like ``double``.
    public var edgeString = "plain"
    /// Nanoseconds after a whole second: a store keeping microseconds (or milliseconds) loses them.
    public var date = Date(timeIntervalSinceReferenceDate: 800_000_000.123_456_789)
    /// Before 1970 and with a fraction: a store that truncates toward zero or floors gets it wrong.
    public var datePast = Date(timeIntervalSince1970: -1_234_567_890.987_654_321)
    /// Empty `Data`, which is not `nil`.
    public var emptyData = Data()
    /// Every byte value, NUL and invalid UTF-8 included.
    public var binaryData = Data((0...255).map(UInt8.init) + [0, 0, 255])
    /// A `UUID` that is not the `id`.
    public var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    /// A URL with a percent escape, a non-ASCII host label, a query and a fragment.
    public var url = URL(string: "https://xn--bcher-kva.example/a%20b/%C3%A9?q=1&r=%2F#frag")!
    /// A file URL with a space and a non-ASCII letter.
    public var fileURL = URL(fileURLWithPath: "/tmp/a b/ü.json")
    /// 38 significant digits: more than a `Double` holds.
    public var decimal = Decimal(string: "3.1415926535897932384626433832795028841")!
    /// A negative decimal with a small exponent.
    public var decimalSmall = Decimal(string: "-0.000000000000000000000000000001")!
    /// Optionals holding a value (an empty string among them) and optionals that are `nil`.
    public var optionalInt: Int? = 7
    /// An optional `Int` that is `nil`.
    public var optionalIntNil: Int?
    /// An optional `String` holding the empty string, which is not `nil`.
    public var optionalString: String? = ""
    /// An optional `String` that is `nil`.
    public var optionalStringNil: String?
    /// An optional `Date` with a fraction of a second.
    public var optionalDate: Date? = Date(timeIntervalSinceReferenceDate: 0.5)
    /// An optional raw-value enum holding a case.
    public var optionalStatus: Status? = .done
    /// An optional `Codable` struct that is `nil`.
    public var optionalItineraryNil: Itinerary?
    /// Order matters and duplicates stay.
    public var ints = [3, 1, 2, 1, .min, .max]
    /// Strings in no order, one empty, one twice.
    public var strings = ["b", "", "a", "b"]
    /// An empty array, which is not `nil`.
    public var emptyStrings: [String] = []
    /// Dates with fractions, one before the reference date.
    public var dates = [Date(timeIntervalSinceReferenceDate: 1.25), Date(timeIntervalSinceReferenceDate: -0.75)]
    /// An array with a `nil` inside.
    public var optionalInts: [Int?] = [1, nil, 3]
    /// The empty key is a key; a decomposed key stays decomposed.
    public var counts: [String: Int] = ["a": 1, "": 0, "cafe\u{301}": 2, "z": .min]
    /// An empty dictionary.
    public var emptyCounts: [String: Int] = [:]
    /// Raw-value enums, alone and in an array.
    public var status = Status.done
    /// Raw-value enums in an array, one twice.
    public var statuses: [Status] = [.done, .planned, .done]
    /// A raw-value enum whose raw value needs more than 32 bits.
    public var level = Level.high
    /// `Codable` enums with associated values, alone and in an array with every case.
    public var transport = Transport.train(line: "S1", car: 3)
    /// `Codable` enums with associated values, every case, in an array.
    public var transports: [Transport] = [.walk, .flight("FI 450", seats: [12, 13]), .flight("", seats: nil)]
    /// A nested `Codable` struct with a `nil` optional and an array of structs.
    public var itinerary = Itinerary(
        title: "Ring road", firstLeg: Leg(to: "Vík", kilometres: 187),
        legs: [Leg(to: "Höfn", kilometres: nil), Leg(to: "Egilsstaðir", kilometres: 247)], note: nil)

    /// Makes a model holding every default value, with a new `id`.
    public init() {}

    /// Every attribute by name, each value as written in the model.
    public var attributeValues: KeyValuePairs<String, Any> {
        [
            "id": id, "int8Min": int8Min, "int8Max": int8Max, "int16Min": int16Min, "int16Max": int16Max,
            "int32Min": int32Min, "int32Max": int32Max, "int64Min": int64Min, "int64Max": int64Max, "intMin": intMin,
            "intMax": intMax, "uint8Max": uint8Max, "uint16Max": uint16Max, "uint32Max": uint32Max,
            "uint64Max": uint64Max, "uintMax": uintMax, "uintMin": uintMin, "double": double, "doubleTenth": doubleTenth,
            "doubleMax": doubleMax, "float": float, "isTrue": isTrue, "isFalse": isFalse, "emptyString": emptyString,
            "unicodeString": unicodeString, "edgeString": edgeString, "date": date, "datePast": datePast,
            "emptyData": emptyData, "binaryData": binaryData, "uuid": uuid, "url": url, "fileURL": fileURL,
            "decimal": decimal, "decimalSmall": decimalSmall, "optionalInt": optionalInt as Any,
            "optionalIntNil": optionalIntNil as Any, "optionalString": optionalString as Any,
            "optionalStringNil": optionalStringNil as Any, "optionalDate": optionalDate as Any,
            "optionalStatus": optionalStatus as Any, "optionalItineraryNil": optionalItineraryNil as Any, "ints": ints,
            "strings": strings, "emptyStrings": emptyStrings, "dates": dates, "optionalInts": optionalInts,
            "counts": counts, "emptyCounts": emptyCounts, "status": status, "statuses": statuses, "level": level,
            "transport": transport, "transports": transports, "itinerary": itinerary,
        ]
    }

    /// The attributes whose values are not exactly `other`'s, each as "name: value vs value":
    /// floating point and dates by bit pattern, strings and dictionary keys by Unicode scalars
    /// (Swift's `==` on strings is canonical equivalence), decimals by value, arrays in order.
    public func exactDifferences(from other: SuiteEveryType) -> [String] {
        zip(attributeValues, other.attributeValues).compactMap { mine, theirs in
            let (a, b) = (ExactValue.text(of: mine.value), ExactValue.text(of: theirs.value))
            return a.unicodeScalars.elementsEqual(b.unicodeScalars) ? nil : "\(mine.key): \(a) vs \(b)"
        }
    }
}

/// A spelling of a value in which two values are the same exactly when they are equal bit for
/// bit: what `SuiteEveryType.exactDifferences(from:)` compares.
enum ExactValue {
    static func text(of value: Any) -> String {
        switch value {
        case let v as Double: return "Double(\(v) bits \(String(v.bitPattern, radix: 16)))"
        case let v as Float: return "Float(\(v) bits \(String(v.bitPattern, radix: 16)))"
        case let v as String: return "\"\(v.debugDescription.dropFirst().dropLast())\" scalars \(v.unicodeScalars.map { String($0.value, radix: 16) })"
        case let v as Date: return "Date(\(v.timeIntervalSinceReferenceDate) bits \(String(v.timeIntervalSinceReferenceDate.bitPattern, radix: 16)))"
        case let v as Decimal: return "Decimal(\(v))"
        case let v as URL: return "URL(\(text(of: v.absoluteString)))"
        case let v as Data: return "Data(\(v.base64EncodedString()))"
        case let v as UUID: return "UUID(\(v.uuidString))"
        default: break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional: return mirror.children.first.map { "some(\(text(of: $0.value)))" } ?? "nil"
        case .collection: return "[" + mirror.children.map { text(of: $0.value) }.joined(separator: ", ") + "]"
        case .dictionary:
            // Each child is a (key, value) pair; sorted by their spelling, as a dictionary has no order.
            return "[" + mirror.children.map { pair in
                Mirror(reflecting: pair.value).children.map { text(of: $0.value) }.joined(separator: ": ")
            }.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }.joined(separator: ", ") + "]"
        case .enum where !mirror.children.isEmpty:
            return mirror.children.map { "\($0.label ?? "")(\(text(of: $0.value)))" }.joined()
        case .struct, .tuple:
            return "{" + mirror.children.map { "\($0.label ?? ""): \(text(of: $0.value))" }.joined(separator: ", ") + "}"
        default: return "\(type(of: value)).\(value)"
        }
    }
}

/// Issue 29: every attribute type SwiftData stores round-trips exactly through a save and a
/// reopened store, and an update's history names exactly the attributes that changed.
enum AttributeTypeCases {
    /// A schema of the suite's models and ``SuiteEveryType``.
    static var schema: Schema { Schema(ConformanceModels.types + [SuiteEveryType.self]) }

    /// Saves with `write` into a store of `configuration`, then reads with `read` from the store
    /// reopened (a new container on the same configuration) when the target keeps data across
    /// reopening, else from a new context of the same container.
    static func saveAndReopen<T>(
        _ target: ConformanceTarget, write: (ModelContainer) throws -> Void, read: (ModelContainer) throws -> T
    ) throws -> T {
        let configuration = try target.makeConfiguration()
        guard target.capabilities.contains(.persistence) else {
            let container = try ModelContainer(for: schema, configurations: [configuration])
            try write(container)
            return try read(container)
        }
        do { try write(try ModelContainer(for: schema, configurations: [configuration])) }
        return try read(try ModelContainer(for: schema, configurations: [configuration]))
    }

    /// Values a store may be unable to hold: each is stored exactly or refused whole with
    /// `DataStoreError` `.unsupportedValue`; never changed.
    static let edgeValues: [(name: String, set: @Sendable (SuiteEveryType) -> Void)] = [
        ("Double -0.0", { $0.double = -0.0 }),
        ("Double smallest subnormal", { $0.double = .leastNonzeroMagnitude }),
        ("Double largest subnormal", { $0.double = Double(bitPattern: 0x000F_FFFF_FFFF_FFFF) }),
        ("Double -subnormal", { $0.double = -.leastNonzeroMagnitude }),
        ("Double +infinity", { $0.double = .infinity }),
        ("Double -infinity", { $0.double = -.infinity }),
        ("Double NaN with a payload", { $0.double = Double(nan: 0x1234, signaling: false) }),
        ("Float -0.0", { $0.float = -0.0 }),
        ("Float subnormal", { $0.float = .leastNonzeroMagnitude }),
        ("Float +infinity", { $0.float = .infinity }),
        ("Float -infinity", { $0.float = -.infinity }),
        ("Float signaling NaN", { $0.float = Float(bitPattern: 0x7F80_0001) }),
        ("Float negative signaling NaN", { $0.float = Float(bitPattern: 0xFF80_0001) }),
        ("Float signaling NaN with a high payload", { $0.float = Float(bitPattern: 0x7FA0_0000) }),
        ("Float quiet NaN with a payload", { $0.float = Float(bitPattern: 0x7FC0_1234) }),
        ("String with a NUL inside", { $0.edgeString = "a\u{0}b" }),
        ("String of one NUL", { $0.edgeString = "\u{0}" }),
        ("String with a lone combining mark and a BOM", { $0.edgeString = "\u{301}\u{FEFF}x" }),
        ("Date with the last bit of a fraction", { $0.date = Date(timeIntervalSinceReferenceDate: Double(bitPattern: 0x41C7_D784_0000_0001)) }),
        ("dictionary key with a NUL", { $0.counts = ["a\u{0}": 1, "a": 2] }),
    ]

    static let all: [ConformanceCase] = [
        ConformanceCase(area: "types", name: "everyAttributeTypeRoundTripsExactlyThroughReopening") { target in
            let original = SuiteEveryType()
            let stored = try saveAndReopen(target, write: { container in
                let context = ModelContext(container)
                context.insert(original)
                try context.save()
            }, read: { container in
                try ModelContext(container).fetch(FetchDescriptor<SuiteEveryType>())
            })
            try checkEqual(stored.count, 1, "models stored")
            try checkEqual(stored[0].exactDifferences(from: original), [], "attributes not read back exactly")
        },
        ConformanceCase(area: "types", name: "edgeValuesRoundTripExactlyOrAreRefusedWithATypedError") { target in
            var models: [(name: String, model: SuiteEveryType)] = []
            let stored = try saveAndReopen(target, write: { container in
                for (name, set) in edgeValues {
                    let model = SuiteEveryType()
                    set(model)
                    let context = ModelContext(container)
                    context.insert(model)
                    do {
                        try context.save()
                        models.append((name, model))
                    } catch let error as DataStoreError where error.code == .unsupportedValue {
                        let count = try ModelContext(container).fetchCount(FetchDescriptor<SuiteEveryType>())
                        try checkEqual(count, models.count, "models stored after refusing the \(name)")
                    }
                }
            }, read: { container in
                try ModelContext(container).fetch(FetchDescriptor<SuiteEveryType>())
            })
            try checkEqual(stored.count, models.count, "models stored (one per accepted edge value)")
            for (name, model) in models {
                let back = try require(stored.first { $0.id == model.id }, "the model holding the \(name)")
                try checkEqual(back.exactDifferences(from: model), [], "attributes not read back exactly with the \(name)")
            }
        },
        ConformanceCase(area: "history", name: "anUpdateListsExactlyTheOneAttributeSet", requires: [.history, .updates]) { target in
            let container = try ModelContainer(for: schema, configurations: [target.makeConfiguration()])
            let writer = ModelContext(container)
            writer.insert(SuiteEveryType())
            try writer.save()
            // One attribute of each kind, set on a fetched model and saved alone; collections
            // and composites changed in place, through `_modify`.
            let changes: [(AnyKeyPath, (SuiteEveryType) -> Void)] = [
                (\SuiteEveryType.int8Min, { $0.int8Min = 0 }),
                (\SuiteEveryType.uint64Max, { $0.uint64Max = 1 }),
                (\SuiteEveryType.double, { $0.double = -$0.double }),
                (\SuiteEveryType.float, { $0.float = 2 }),
                (\SuiteEveryType.isFalse, { $0.isFalse.toggle() }),
                (\SuiteEveryType.unicodeString, { $0.unicodeString += "!" }),
                (\SuiteEveryType.date, { $0.date = $0.date.addingTimeInterval(0.001) }),
                (\SuiteEveryType.binaryData, { $0.binaryData.append(7) }),
                (\SuiteEveryType.uuid, { $0.uuid = UUID() }),
                (\SuiteEveryType.url, { $0.url = URL(string: "https://example.com")! }),
                (\SuiteEveryType.decimal, { $0.decimal += 1 }),
                (\SuiteEveryType.optionalInt, { $0.optionalInt = nil }),
                (\SuiteEveryType.optionalIntNil, { $0.optionalIntNil = 0 }),
                (\SuiteEveryType.ints, { $0.ints.append(4) }),
                (\SuiteEveryType.counts, { $0.counts["new"] = 1 }),
                (\SuiteEveryType.status, { $0.status = .planned }),
                (\SuiteEveryType.level, { $0.level = .low }),
                (\SuiteEveryType.transport, { $0.transport = .walk }),
                (\SuiteEveryType.itinerary, { $0.itinerary.legs[0].kilometres = 1 }),
            ]
            for (keyPath, change) in changes {
                let context = ModelContext(container)
                let model = try require(try context.fetch(FetchDescriptor<SuiteEveryType>()).first, "the model")
                let token = try container.currentHistoryToken()
                change(model)
                try context.save()
                let updates = try history(container, after: token).flatMap(\.changes).compactMap { change in
                    if case .update(let update as DefaultHistoryUpdate<SuiteEveryType>) = change { update } else { nil }
                }
                try checkEqual(updates.count, 1, "updates recorded for setting \(keyPath)")
                let listed = updates[0].updatedAttributes.map { $0 as AnyKeyPath }
                try check(listed.count == 1 && listed.first == keyPath,
                          "the update for setting \(keyPath) must list exactly it, listed \(listed)")
            }
        },
        // A value `==` finds equal to the stored one but that is not the same bits (-0 for 0, a
        // string's canonically equivalent other spelling) is a change: stored, recorded, read
        // back exactly. A store that compares with `==` keeps the old bytes and records nothing.
        ConformanceCase(area: "history", name: "aValueEqualButNotIdenticalIsStoredAndRecorded", requires: [.history, .updates]) { target in
            let container = try ModelContainer(for: schema, configurations: [target.makeConfiguration()])
            let writer = ModelContext(container)
            let stored = SuiteEveryType()
            stored.double = 0
            stored.edgeString = "cafe\u{301}"
            writer.insert(stored)
            try writer.save()
            let context = ModelContext(container)
            let model = try require(try context.fetch(FetchDescriptor<SuiteEveryType>()).first, "the model")
            let token = try container.currentHistoryToken()
            model.double = -0.0
            model.edgeString = "caf\u{e9}"
            try context.save()
            let updates = try history(container, after: token).flatMap(\.changes).compactMap { change in
                if case .update(let update as DefaultHistoryUpdate<SuiteEveryType>) = change { update } else { nil }
            }
            try checkEqual(updates.count, 1, "updates recorded for setting 0 to -0 and a string to its other spelling")
            try checkEqual(updates[0].updatedAttributes.count, 2, "attributes the update lists (\(updates[0].updatedAttributes))")
            let read = try require(try ModelContext(container).fetch(FetchDescriptor<SuiteEveryType>()).first, "the model, read back")
            try checkEqual(read.double.bitPattern, (-0.0).bitPattern, "the bits of the double read back")
            try checkEqual(Array(read.edgeString.unicodeScalars), Array("caf\u{e9}".unicodeScalars), "the scalars of the string read back")
        },
        ConformanceCase(area: "history", name: "settingAnAttributeToItsValueRecordsNoUpdate", requires: [.history, .updates]) { target in
            let container = try ModelContainer(for: schema, configurations: [target.makeConfiguration()])
            let writer = ModelContext(container)
            writer.insert(SuiteEveryType())
            try writer.save()
            let context = ModelContext(container)
            let model = try require(try context.fetch(FetchDescriptor<SuiteEveryType>()).first, "the model")
            let token = try container.currentHistoryToken()
            model.int64Min = model.int64Min
            model.double = model.double
            model.unicodeString = model.unicodeString
            model.optionalIntNil = nil
            model.itinerary = model.itinerary
            model.ints.append(9)
            model.ints.removeLast()   // changed and changed back: no change
            model.counts["a"] = 1
            try context.save()
            let changes = try history(container, after: token).flatMap(\.changes)
            try checkEqual(changes.count, 0, "changes recorded for setting attributes to the values they hold (\(changes))")
            try checkEqual(context.hasChanges, false, "hasChanges after the save")
        },
    ]
}
