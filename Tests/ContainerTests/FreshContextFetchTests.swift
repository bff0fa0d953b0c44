import DataStores
import Foundation
import StoreTestSupport
import Testing

/// A fetch into a context that holds no model decodes each row and registers it in one hashed
/// lookup (`ModelContext.materializeNew`), where a context that holds models looks for each
/// row's registration first (`materialize`). Both must give the same answer on whatever a store
/// sends: varied values (nil, NaN, empty and long strings, unicode), the same row twice with the
/// same or other values, a row whose stored `id` is not its identifier's key, rows that do not
/// decode, and a duplicate that does not decode.
@Suite struct FreshContextFetchTests {
    typealias Sample = FetchFastPathTests.Sample

    /// A model of another entity: fetched first, it makes a context hold a model, so that its
    /// fetches of `Sample` take the reference path.
    @Model final class Other {
        var label: String
        init(label: String) { self.label = label }
    }

    /// A store that answers every fetch of an entity with the rows it was given for it, as they
    /// are (duplicates, mismatched keys and undecodable rows included).
    final class ScriptedStore: DataStore {
        struct Configuration: DataStoreConfiguration {
            typealias Store = ScriptedStore
            var name = "scripted"
            var schema: Schema?
            var allowsSave = false
            var rows: [DefaultSnapshot]
        }

        let configuration: Configuration
        let identifier = UUID().uuidString
        let schema: Schema

        init(_ configuration: Configuration) throws {
            guard let schema = configuration.schema else { throw DataStoreError(.invalidSchema, "no schema") }
            self.configuration = configuration
            self.schema = schema
        }

        func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
            let rows = configuration.rows.filter { $0.persistentIdentifier.entityName == request.query.entityName }
            return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: rows)
        }

        func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
            throw DataStoreError(.readOnly, "scripted")
        }

        func erase() throws {}
    }

    /// What a fetch gave: each model's values, which models are the same instance, and whether
    /// a change to a fetched model reaches the context; or the error.
    struct Outcome: Equatable {
        var values: [FetchFastPathTests.ByLookup]
        /// For each model, the position of the first model that is the same instance.
        var firstInstance: [Int]
        /// Whether each model is the one the context holds under its identifier.
        var registered: [Bool]
        var changeIsSeen: Bool
    }

    /// A fetch's error, by its description.
    struct Failure: Error, Equatable {
        let description: String
    }

    static func fetch(_ rows: [DefaultSnapshot], freshContext: Bool) throws -> Result<Outcome, Failure> {
        let configuration = ScriptedStore.Configuration(rows: rows + [otherRow])
        let container = try ModelContainer(for: Schema(Sample.self, Other.self), configurations: [configuration])
        let context = ModelContext(container)
        if !freshContext {
            // The context now holds a model: its fetches of `Sample` take the reference path.
            guard try context.fetch(FetchDescriptor<Other>()).count == 1 else { return .failure(Failure(description: "no Other row")) }
        }
        do {
            let models = try context.fetch(FetchDescriptor<Sample>())
            let firstInstance = models.map { model in models.firstIndex { $0 === model } ?? -1 }
            let registered = models.map { context.registeredModel(for: $0.persistentModelID) as Sample? === $0 }
            if let first = models.first { first.name += "!" }
            return .success(Outcome(values: models.map(FetchFastPathTests.ByLookup.init), firstInstance: firstInstance,
                                    registered: registered, changeIsSeen: models.isEmpty || context.hasChanges))
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }

    static let otherRow: DefaultSnapshot = {
        let id = UUID(uuidString: "00000000-0000-0000-0000-0000000000AA")!
        return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: "Other", primaryKey: .uuid(id)),
                               values: ["id": .uuid(id), "label": .string("other")])
    }()

    /// A seeded list of rows: values from `FetchFastPathTests.storedValues()` (decodable and
    /// not), keys from a small pool so that rows repeat, now and then a row whose stored `id`
    /// differs from its identifier's key.
    static func rows(seed: UInt64, entityName: String) throws -> [DefaultSnapshot] {
        var generator = SeededGenerator(seed: seed)
        let templates = try FetchFastPathTests.storedValues()
        let decodable = templates.filter { (try? Sample(storedValues: $0)) != nil }
        let keys = (0..<6).map { _ in UUID(uuid: generator.uuidBytes()) }
        let count = Int.random(in: 0...12, using: &generator)
        return (0..<count).map { _ in
            // Mostly decodable rows, so that most lists fetch; some lists hold a broken one.
            let pool = Int.random(in: 0..<20, using: &generator) == 0 ? templates : decodable
            var values = pool[Int.random(in: 0..<pool.count, using: &generator)]
            let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
            if values["id"] != nil { values["id"] = .uuid(key) }
            var identifierKey = key
            if Int.random(in: 0..<15, using: &generator) == 0 { identifierKey = keys[Int.random(in: 0..<keys.count, using: &generator)] }
            return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entityName, primaryKey: .uuid(identifierKey)),
                                   values: values)
        }
    }

    @Test func aFreshContextsFetchGivesWhatTheReferencePathGives() throws {
        let entityName = Sample.entityName
        var fetched = 0, failed = 0, repeated = 0, mismatched = 0
        for seed in UInt64(0)..<300 {
            let rows = try Self.rows(seed: seed, entityName: entityName)
            let fresh = try Self.fetch(rows, freshContext: true)
            let reference = try Self.fetch(rows, freshContext: false)
            #expect(fresh == reference, "seed \(seed)")
            switch reference {
            case .success(let outcome):
                fetched += 1
                if Set(outcome.firstInstance).count < outcome.firstInstance.count { repeated += 1 }
            case .failure: failed += 1
            }
            if rows.contains(where: { $0.values["id"] != nil && $0.values["id"] != $0.persistentIdentifier.primaryKey }) {
                mismatched += 1
            }
        }
        // The lists held each case the fast path hands over, so each was compared. (Negative
        // controls: mutations K01 and K02 break the fast path; this test fails under each.)
        #expect(fetched > 100 && failed > 10 && repeated > 50 && mismatched > 10, "\(fetched) \(failed) \(repeated) \(mismatched)")
    }
}
