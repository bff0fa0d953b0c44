import DataStores
import Foundation
import MemoryStore
import Testing

/// SwiftData's fetch hints compile as SwiftData code writes them and change no result (an
/// adversary's port met "has no member 'propertiesToFetch'").
@Suite struct FetchDescriptorHintTests {
    @Model final class Stay {
        var name: String
        var nights: Int
        var place: Place?
        init(name: String, nights: Int) { self.name = name; self.nights = nights }
    }

    @Model final class Place {
        var title: String
        @Relationship(inverse: \Stay.place) var stays: [Stay] = []
        init(title: String) { self.title = title }
    }

    @Test func hintsAreAcceptedAndChangeNoResult() throws {
        let container = try ModelContainer(for: Stay.self, Place.self, configurations: MemoryStoreConfiguration())
        let setup = ModelContext(container)
        let inn = Place(title: "Inn")
        setup.insert(inn)
        for n in 0..<5 { let stay = Stay(name: "s\(n)", nights: n); setup.insert(stay); stay.place = inn }
        try setup.save()

        var hinted = FetchDescriptor<Stay>(predicate: #Predicate { $0.nights >= 2 }, sortBy: [SortDescriptor(\.nights)])
        hinted.propertiesToFetch = [\.name, \.nights]
        hinted.relationshipKeyPathsForPrefetching = [\.place]
        let plain = FetchDescriptor<Stay>(predicate: #Predicate { $0.nights >= 2 }, sortBy: [SortDescriptor(\.nights)])
        let a = try ModelContext(container).fetch(hinted), b = try ModelContext(container).fetch(plain)
        #expect(a.map(\.name) == ["s2", "s3", "s4"])
        #expect(a.map(\.name) == b.map(\.name))
        #expect(a.map { $0.place?.title } == ["Inn", "Inn", "Inn"])
        #expect(hinted.propertiesToFetch.count == 2 && hinted.relationshipKeyPathsForPrefetching.count == 1)
    }
}
