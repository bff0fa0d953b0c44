import DataStores
import Foundation
import MemoryStore
@testable import StoreProtocol
import Testing

/// `@Model` classes as Observation and the context see them: a set of an attribute or a
/// relationship, and an in-place change of a to-many (`_modify`), each fire
/// `withObservationTracking`; a get does not; and a save after one set encodes that one model.
@Suite struct ModelObservationTests {
    @Model final class Leg {
        var city: String
        var journey: Journey?
        init(_ city: String) { self.city = city }
    }

    @Model final class Journey {
        var name: String
        var nights = 0
        var legs: [Leg] = []
        var guide: Leg?
        init(_ name: String) { self.name = name }
    }

    /// Whether `change` fires the `onChange` of tracking `read`, and how often.
    private func firings(reading read: () -> Void, when change: () -> Void) -> Int {
        let fired = Locked(0)
        withObservationTracking(read) { fired.withLock { $0 += 1 } }
        change()
        return fired.withLock { $0 }
    }

    @Test func anAttributeSetIsObserved() {
        let journey = Journey("Coast")
        #expect(firings(reading: { _ = journey.nights }, when: { journey.nights = 2 }) == 1)
        // Another attribute's set is not this one's change.
        #expect(firings(reading: { _ = journey.nights }, when: { journey.name = "Fjords" }) == 0)
    }

    @Test func aRelationshipSetIsObserved() {
        let journey = Journey("Coast")
        let leg = Leg("Bergen")
        #expect(firings(reading: { _ = journey.guide }, when: { journey.guide = leg }) == 1)
        #expect(firings(reading: { _ = journey.guide }, when: { journey.guide = nil }) == 1)
    }

    /// `journey.legs.append(leg)` goes through `_modify`: observed, and marked changed.
    @Test func anAppendToARelationshipIsObserved() throws {
        let journey = Journey("Coast")
        #expect(firings(reading: { _ = journey.legs }, when: { journey.legs.append(Leg("Ålesund")) }) == 1)
        #expect(journey.legs.map(\.city) == ["Ålesund"])
        #expect(try #require(journey.persistentBackingData).hasChanges)
    }

    @Test func aGetIsNotAChange() throws {
        let journey = Journey("Coast")
        journey.legs = [Leg("Molde")]
        let backing = try #require(journey.persistentBackingData)
        #expect(firings(reading: { _ = journey.name }, when: {
            _ = journey.name
            _ = journey.legs.count
            _ = journey.guide
        }) == 0)
        #expect(!backing.isChanged(1), "name was only read")
    }

    /// A context holding 10,000 fetched models: a set on one is the only model the next save
    /// encodes, and the saved value is the one stored.
    @Test func aSaveAfterOneSetEncodesOnlyThatModel() throws {
        let container = try ModelContainer(for: Journey.self, configurations: MemoryStoreConfiguration())
        let setUp = ModelContext(container)
        for index in 0..<10_000 { setUp.insert(Journey("journey \(index)")) }
        try setUp.save()
        #expect(setUp.modelsEncodedByLastSave == 10_000)

        let context = ModelContext(container)
        let journeys = try context.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(journeys.count == 10_000)
        #expect(!context.hasChanges && context.changedModelsArray.isEmpty)
        _ = journeys.map(\.nights)   // reads are no changes
        #expect(!context.hasChanges)
        journeys[4_321].nights = 7
        #expect(context.hasChanges)
        #expect(context.changedModelsArray.count == 1 && context.changedModelsArray.first === journeys[4_321])
        try context.save()
        #expect(context.modelsEncodedByLastSave == 1)
        #expect(!context.hasChanges)
        let stored = try ModelContext(container).fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.nights == 7 }))
        #expect(stored.map(\.name) == [journeys[4_321].name])
    }
}
