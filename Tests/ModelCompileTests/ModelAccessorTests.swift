import DataStores
import Testing

@Model final class Trip {
    var name: String
    var tags: [String] = []
    var visits = 0
    @Attribute(.ephemeral) var isExpanded = false
    @Transient var scratch = 0

    init(name: String) { self.name = name }
}

/// A model that declares its own `id` (the primary key, no `id` generated) and a `let` without
/// an initial value (persisted, set once).
@Model final class Airport {
    var id: String
    let openedIn: Int

    init(code: String, openedIn: Int) {
        id = code
        self.openedIn = openedIn
    }
}

/// Properties named as the generated members' own locals and parameters.
@Model final class Reading {
    var values: [Double] = []
    let value: Int
    init(value: Int) { self.value = value }
}

/// The accessors `@_PersistedProperty` gives a persisted `var`: observed, marking that one
/// property (its index in the metadata) changed, and changing an array in place.
@Suite struct ModelAccessorTests {
    /// Whether `change` makes `withObservationTracking` over `read` fire.
    func fires(reading read: @escaping () -> Void, when change: () -> Void) -> Bool {
        let fired = Locked(false)
        withObservationTracking(read) { fired.set(true) }
        change()
        return fired.value
    }

    @Test func aSetIsObservedAndMarksThatPropertyAlone() throws {
        let trip = Trip(name: "Kona")
        let backing = try #require(trip.persistentBackingData)
        #expect(!backing.hasChanges)
        #expect(fires(reading: { _ = trip.name }, when: { trip.name = "Hilo" }))
        // Index 0 is the generated id, 1 name, 2 tags, 3 visits.
        #expect(backing.isChanged(1) && !backing.isChanged(0) && !backing.isChanged(2) && !backing.isChanged(3))
    }

    /// `trip.tags.append(x)` goes through `_modify`: the array is changed in its own buffer (no
    /// copy), observers hear of it, and the property is marked changed.
    @Test func anAppendChangesTheArrayInPlaceAndIsSeen() throws {
        let trip = Trip(name: "Kona")
        trip.tags.reserveCapacity(8)
        trip.tags.append("first")
        let backing = try #require(trip.persistentBackingData)
        let buffer = trip.tags.withUnsafeBufferPointer { $0.baseAddress }
        #expect(fires(reading: { _ = trip.tags }, when: { trip.tags.append("beach") }))
        #expect(trip.tags == ["first", "beach"])
        #expect(trip.tags.withUnsafeBufferPointer { $0.baseAddress } == buffer)
        #expect(backing.isChanged(2))
        #expect(try trip.storedValues()["tags"] == .array([.string("first"), .string("beach")]))
    }

    /// An `.ephemeral` attribute is observed and never stored; setting it is no change to save.
    @Test func anEphemeralAttributeIsObservedNotStored() throws {
        let trip = Trip(name: "Kona")
        #expect(fires(reading: { _ = trip.isExpanded }, when: { trip.isExpanded = true }))
        #expect(try trip.storedValues().keys.sorted() == ["id", "name", "tags", "visits"])
        #expect(trip.persistentBackingData?.hasChanges == false)
    }

    /// A model read from stored values keeps a `@Transient` property's initial value and takes
    /// every stored one.
    @Test func storedValuesRoundTripThroughTheGeneratedInit() throws {
        let trip = Trip(name: "Kona")
        trip.tags = ["a"]
        trip.visits = 3
        trip.scratch = 5
        let read = try Trip(storedValues: trip.storedValues())
        #expect(read.id == trip.id && read.name == "Kona" && read.tags == ["a"] && read.visits == 3 && read.scratch == 0)
        // `visits` has its type from its initial value: assigned through the same decode.
        try read.assignStoredValues(["id": .uuid(trip.id), "name": .string("Hilo"), "tags": .array([]), "visits": .int(4)])
        #expect(read.name == "Hilo" && read.tags == [] && read.visits == 4)
        // All or nothing: the name decodes, the visits do not, and nothing changes.
        #expect(throws: (any Error).self) {
            try read.assignStoredValues(["id": .uuid(trip.id), "name": .string("Kailua"), "tags": .array([]), "visits": .string("x")])
        }
        #expect(read.name == "Hilo" && read.visits == 4)
    }
}

extension ModelAccessorTests {
    @Test func aDeclaredIDAndALetRoundTrip() throws {
        let airport = Airport(code: "KOA", openedIn: 1970)
        #expect(try airport.storedValues() == ["id": .string("KOA"), "openedIn": .int(1970)])
        let read = try Airport(storedValues: airport.storedValues())
        #expect(read.id == "KOA" && read.openedIn == 1970)
        #expect(read.persistentModelID == airport.persistentModelID)
        #expect(fires(reading: { _ = read.id }, when: { read.id = "ITO" }))
    }
}

extension ModelAccessorTests {
    @Test func propertiesNamedValuesAndValue() throws {
        let reading = Reading(value: 7)
        reading.values = [1.5]
        let read = try Reading(storedValues: reading.storedValues())
        #expect(read.values == [1.5] && read.value == 7)
        try read.assignStoredValues(["id": .uuid(read.id), "values": .array([.double(2)]), "value": .int(7)])
        #expect(read.values == [2])
    }
}

/// A value changed by an observation callback (which may run on another thread) and read after.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
