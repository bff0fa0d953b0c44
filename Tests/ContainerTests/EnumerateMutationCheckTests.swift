import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// `enumerate` without `allowEscapingMutations` throws when a batch leaves a change behind, also
/// when the context had unsaved changes before it began (found by an adversary: the check was
/// skipped then, and any mutation passed).
@Suite struct EnumerateMutationCheckTests {
    @Model final class Note {
        var text: String
        var weight: Double
        init(text: String, weight: Double = 0) { self.text = text; self.weight = weight }
    }

    enum Kind: CaseIterable { case memory, json }

    /// A context over a store holding notes n0…n5 (n5's weight is NaN).
    static func context(_ kind: Kind) throws -> ModelContext {
        let container: ModelContainer
        switch kind {
        case .memory: container = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration())
        case .json:
            let url = try temporaryDirectory().appending(path: "store.json")
            container = try ModelContainer(for: Note.self, configurations: JSONStoreConfiguration(url: url))
        }
        let setup = ModelContext(container)
        for n in 0..<6 { setup.insert(Note(text: "n\(n)", weight: n == 5 ? .nan : Double(n))) }
        try setup.save()
        return ModelContext(container)
    }

    /// The unsaved change a context holds before the enumeration: none, a changed value (a NaN,
    /// which is not equal to itself), an insert, a delete.
    enum Before: CaseIterable { case nothing, change, nanChange, insert, delete }

    /// Makes the change `before` names; returns n0 (changed by `.change`).
    @discardableResult
    static func prepare(_ before: Before, in context: ModelContext) throws -> Note {
        let notes = try context.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)]))
        switch before {
        case .nothing: break
        case .change: notes[0].text = "pending"
        case .nanChange: notes[1].weight = .nan
        case .insert: context.insert(Note(text: "new"))
        case .delete: context.delete(notes[2])
        }
        return notes[0]
    }

    /// What the block does to one model: change a value, change it to itself made differently
    /// (-0 for 0), change n0 (again, when the context changed it before), insert, delete.
    enum Mutation: CaseIterable { case change, negativeZero, changeFirst, insert, delete }

    @Test(arguments: Kind.allCases, Before.allCases)
    func aMutationInABatchThrowsWhateverWasPendingBefore(kind: Kind, before: Before) throws {
        for mutation in Mutation.allCases {
            let context = try Self.context(kind)
            let first = try Self.prepare(before, in: context)
            var visited = 0
            #expect(throws: ModelContextError.self, "\(mutation) after \(before)") {
                try context.enumerate(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)]), batchSize: 2) { note in
                    visited += 1
                    guard note.text == "n3" else { return }
                    switch mutation {
                    case .change: note.text = "mutated"
                    case .negativeZero: note.weight = note.weight == 0 ? -0.0 : 0
                    case .changeFirst: first.text += "+"
                    case .insert: context.insert(Note(text: "inserted"))
                    case .delete: context.delete(note)
                    }
                }
            }
            // n3 is in the second batch of two: the check after it threw.
            #expect(visited == 4, "\(mutation) after \(before): visited \(visited)")
        }
    }

    @Test(arguments: Kind.allCases, Before.allCases)
    func readingOnlyPassesAndLeavesWhatWasPending(kind: Kind, before: Before) throws {
        let context = try Self.context(kind)
        try Self.prepare(before, in: context)
        let hadChanges = context.hasChanges
        var texts: [String] = []
        try context.enumerate(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)]), batchSize: 2) { texts.append($0.text) }
        #expect(texts.count == (before == .delete ? 5 : before == .insert ? 7 : 6))
        #expect(context.hasChanges == hadChanges)
        #expect(hadChanges == (before != .nothing))
    }

    @Test(arguments: Kind.allCases)
    func escapingMutationsAreAllowedWhenAsked(kind: Kind) throws {
        let context = try Self.context(kind)
        try Self.prepare(.change, in: context)
        try context.enumerate(FetchDescriptor<Note>(), batchSize: 2, allowEscapingMutations: true) { $0.text += "!" }
        try context.save()
        let saved = try ModelContext(context.container).fetch(FetchDescriptor<Note>()).map(\.text)
        #expect(saved.allSatisfy { $0.hasSuffix("!") })
    }
}
