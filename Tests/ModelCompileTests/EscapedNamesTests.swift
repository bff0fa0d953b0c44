import DataStores
import Foundation
import MemoryStore
import Testing

/// Properties whose names are keywords, written escaped: stored under the plain name. (A `let`
/// so named is expanded alike, `ModelExpansionTests.anEscapedName`; a container refuses a `let`.)
@Model final class Preference {
    var `default`: Bool = false
    var `class`: String
    var `in`: Int

    init(class className: String, in number: Int) {
        self.class = className
        self.in = number
    }
}

@Suite struct EscapedNamesTests {
    @Test func escapedNamesAreStoredUnderThePlainName() throws {
        let preference = Preference(class: "compact", in: 2)
        preference.default = true
        #expect(try preference.storedValues() == [
            "id": .uuid(preference.id), "default": .bool(true), "class": .string("compact"), "in": .int(2),
        ])
        #expect(Schema([Preference.self]).entity(for: Preference.self)?.attributes.map(\.name) == ["id", "default", "class", "in"])
        let read = try Preference(storedValues: preference.storedValues())
        #expect(read.default && read.class == "compact" && read.in == 2)
        try read.assignStoredValues(["id": .uuid(read.id), "default": .bool(false), "class": .string("wide"), "in": .int(2)])
        #expect(!read.default && read.class == "wide")
    }

    @Test func escapedNamesRoundTripThroughAStore() throws {
        let name = "escaped-\(UUID())"
        func open() throws -> ModelContainer {
            try ModelContainer(for: Preference.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        }
        let container = try open()
        let context = ModelContext(container)
        let preference = Preference(class: "compact", in: 2)
        preference.default = true
        context.insert(preference)
        try context.save()
        preference.class = "wide"
        try context.save()
        let read = try #require(try ModelContext(try open()).fetch(FetchDescriptor<Preference>()).first)
        #expect(read.default && read.class == "wide" && read.in == 2)
    }
}
