import Foundation
import JSONStore
import DataStores
import StoreTestSupport
import Testing

/// Issue 13: a JSON store's equality indexes stay in step with what other instances (other
/// processes, in effect) save, through the journal catch-up and through compactions, and are
/// rebuilt on reopen: an indexed fetch always equals the ground truth.
@Suite struct IndexCatchUpTests {
    @Model final class Tagged {
        #Index<Tagged>([\.tag], [\.n])
        var id = UUID()
        var tag: String
        var n: Int
        init(tag: String, n: Int) {
            self.tag = tag
            self.n = n
        }
    }

    private func open(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Tagged.self, configurations: JSONStoreConfiguration(url: url, compactionThreshold: 4_096))
    }

    /// The ids an indexed equality fetch returns, for every tag and a few numbers.
    private func answers(_ container: ModelContainer) throws -> [String: Set<UUID>] {
        var result: [String: Set<UUID>] = [:]
        let context = ModelContext(container)
        for tag in ["t0", "t1", "t2", "t3", "é", "e\u{301}"] {
            result["tag \(tag)"] = Set(try context.fetch(FetchDescriptor<Tagged>(predicate: #Predicate { $0.tag == tag })).map(\.id))
        }
        for n in 0..<4 {
            result["n \(n)"] = Set(try context.fetch(FetchDescriptor<Tagged>(predicate: #Predicate { $0.n == n })).map(\.id))
        }
        return result
    }

    private func expected(_ truth: [UUID: (tag: String, n: Int)]) -> [String: Set<UUID>] {
        var result: [String: Set<UUID>] = [:]
        for tag in ["t0", "t1", "t2", "t3", "é", "e\u{301}"] {
            result["tag \(tag)"] = Set(truth.filter { $0.value.tag == tag }.map(\.key))
        }
        for n in 0..<4 { result["n \(n)"] = Set(truth.filter { $0.value.n == n }.map(\.key)) }
        return result
    }

    @Test func indexedFetchesFollowAnotherInstancesSavesAndAReopen() throws {
        let url = try temporaryDirectory().appending(path: "store.json")
        let writer = try open(url)
        let reader = try open(url)
        var truth: [UUID: (tag: String, n: Int)] = [:]
        var generator = SeededGenerator(seed: 13)
        let tags = ["t0", "t1", "t2", "t3", "é", "e\u{301}"]
        for step in 0..<40 {
            let context = ModelContext(writer)
            let stored = try context.fetch(FetchDescriptor<Tagged>())
            switch step % 4 {
            case 0, 1:
                for _ in 0..<5 {
                    let model = Tagged(tag: tags[Int(generator.next() % 6)], n: Int(generator.next() % 4))
                    context.insert(model)
                    truth[model.id] = (model.tag, model.n)
                }
            case 2:
                for model in stored.prefix(4) {
                    model.tag = tags[Int(generator.next() % 6)]
                    model.n = Int(generator.next() % 4)
                    truth[model.id] = (model.tag, model.n)
                }
            default:
                for model in stored.suffix(3) {
                    context.delete(model)
                    truth[model.id] = nil
                }
            }
            try context.save()
            #expect(try answers(reader) == expected(truth), "step \(step): the other instance, caught up")
            #expect(try answers(writer) == expected(truth), "step \(step): the writer")
        }
        #expect(try answers(try open(url)) == expected(truth), "reopened")
    }
}
