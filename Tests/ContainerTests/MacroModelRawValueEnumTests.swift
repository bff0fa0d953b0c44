import DataStores
import Foundation
import JSONStore
import StoreTestSupport
import Testing

/// A raw-value enum that is neither optional nor in an array (`var priority: Priority`) is an
/// attribute of an `@Model` class: the expansion's `ModelCoding.encode` / `decode` calls resolve
/// to the raw-value overloads (found by an adversary: "ambiguous use of 'encode'"), and it is
/// stored as its raw value, as the `Codable` path stores it. A raw-value enum that is not
/// `Codable` may have a default value (the schema reads it back through its raw value).
@Suite struct MacroModelRawValueEnumTests {
    enum Priority: Int, Codable { case low, high }
    enum Colour: String { case red, green }

    @Model final class Chore {
        var title: String
        var priority: Priority
        var colour: Colour = Colour.green
        var maybe: Priority?
        var history: [Priority] = []
        init(title: String, priority: Priority) { self.title = title; self.priority = priority }
    }

    @Test func aNonOptionalRawValueEnumIsStoredAsItsRawValue() throws {
        let chore = Chore(title: "dishes", priority: .high)
        chore.colour = .red
        let values = try chore.storedValues()
        #expect(values["priority"] == .int(1))
        #expect(try values["priority"] == SnapshotEncoder().encode(Priority.high), "as the Codable path stores it")
        #expect(values["colour"] == .string("red"))
        #expect(values["maybe"] == nil)

        let url = try temporaryDirectory().appending(path: "store.json")
        let open = { try ModelContainer(for: Chore.self, configurations: JSONStoreConfiguration(url: url)) }
        let context = ModelContext(try open())
        context.insert(chore)
        chore.maybe = .low
        chore.history = [.low, .high]
        try context.save()

        let read = try #require(try ModelContext(try open()).fetch(FetchDescriptor<Chore>()).first)
        #expect(read.priority == .high && read.colour == .red && read.maybe == .low && read.history == [.low, .high])
        read.priority = .low
        try read.assignStoredValues(values)
        #expect(read.priority == .high && read.colour == .red && read.maybe == nil)
    }
}
