import DataStores

/// A model keyed by a `String`: the key-equality cases save it under one spelling of an id and
/// then under another that Swift finds equal.
@Model
public final class SuiteNamedKey {
    /// The key, chosen by the case.
    public var id: String
    /// Which save wrote the stored values.
    public var note: String

    /// Makes a model with this id and note, as given.
    public init(id: String, note: String) {
        self.id = id
        self.note = note
    }
}

/// A model keyed by a `Double`, for `0.0` and `-0.0`.
@Model
public final class SuiteMeasuredKey {
    /// The key, chosen by the case.
    public var id: Double
    /// Which save wrote the stored values.
    public var note: String

    /// Makes a model with this id and note, as given.
    public init(id: Double, note: String) {
        self.id = id
        self.note = note
    }
}

/// Keys that Swift finds equal name one model, whatever their spelling: `"café"` precomposed
/// (U+00E9) and decomposed (`e` + U+0301), `0.0` and `-0.0`. A store that keys rows by a key's
/// bytes (a text column, a hash of its encoding) keeps two rows where the context sees one model.
enum KeyEqualityCases {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static let all: [ConformanceCase] = [
        ConformanceCase(area: "keys", name: "aStringKeyInAnotherNormalizationFormIsTheSameModel", requires: .updates) { target in
            try checkOneModel(target, SuiteNamedKey.self, first: precomposed, second: decomposed,
                              make: SuiteNamedKey.init, note: \.note, equalTo: { key in #Predicate<SuiteNamedKey> { $0.id == key } })
        },
        ConformanceCase(area: "keys", name: "aDoubleKeyOfMinusZeroIsTheSameModelAsZero", requires: .updates) { target in
            try checkOneModel(target, SuiteMeasuredKey.self, first: 0.0, second: -0.0,
                              make: SuiteMeasuredKey.init, note: \.note, equalTo: { key in #Predicate<SuiteMeasuredKey> { $0.id == key } })
        },
        ConformanceCase(area: "keys", name: "anInsertOnlyStoreRefusesAKeyItHoldsInAnotherSpelling", lacks: .updates) { target in
            let container = try makeContainer(try target.makeConfiguration())
            let first = ModelContext(container)
            first.insert(SuiteNamedKey(id: precomposed, note: "first"))
            first.insert(SuiteMeasuredKey(id: 0.0, note: "first"))
            try first.save()
            for insert in [{ (context: ModelContext) in context.insert(SuiteNamedKey(id: decomposed, note: "second")) },
                           { (context: ModelContext) in context.insert(SuiteMeasuredKey(id: -0.0, note: "second")) }] {
                let second = ModelContext(container)
                insert(second)
                try checkThrows(DataStoreError(.unsupportedFeature, ""), "inserting a stored key in another spelling into an insert-only store") {
                    try second.save()
                }
            }
            let reader = ModelContext(container)
            try checkEqual(try reader.fetchCount(FetchDescriptor<SuiteNamedKey>()), 1, "rows of the string key")
            try checkEqual(try reader.fetchCount(FetchDescriptor<SuiteMeasuredKey>()), 1, "rows of the double key")
        },
    ]

    static func makeContainer(_ configuration: any DataStoreConfiguration) throws -> ModelContainer {
        try ModelContainer(for: Schema([SuiteNamedKey.self, SuiteMeasuredKey.self]), configurations: [configuration])
    }

    /// Saves a model under `first`, then, from another context, a new model under `second` (equal
    /// to `first`, spelt otherwise): one model must be stored, holding the second save's values,
    /// and an equality fetch by either spelling must find it once, also after reopening.
    static func checkOneModel<Model: PersistentModel, Key: Equatable & CustomDebugStringConvertible>(
        _ target: ConformanceTarget, _ type: Model.Type, first: Key, second: Key,
        make: (Key, String) -> Model, note: KeyPath<Model, String>, equalTo: (Key) -> Predicate<Model>
    ) throws where Model.ID == Key {
        let configuration = try target.makeConfiguration()
        let writer = ModelContext(try makeContainer(configuration))
        writer.insert(make(first, "first"))
        try writer.save()
        let again = ModelContext(writer.container)
        again.insert(make(second, "second"))
        try again.save()

        var containers = [writer.container]
        if target.capabilities.contains(.persistence) { containers.append(try makeContainer(configuration)) }
        for (index, container) in containers.enumerated() {
            let when = index == 0 ? "" : " after reopening"
            let reader = ModelContext(container)
            try checkEqual(try reader.fetchCount(FetchDescriptor<Model>()), 1,
                           "models stored after saving \(first.debugDescription) and then \(second.debugDescription)\(when)")
            try checkEqual(try reader.fetchIdentifiers(FetchDescriptor<Model>()).count, 1, "identifiers stored\(when)")
            for key in [first, second] {
                let found = try reader.fetch(FetchDescriptor<Model>(predicate: equalTo(key)))
                try checkEqual(found.count, 1, "models fetched with id == \(key.debugDescription)\(when)")
                try check(found.first?.id == first, "the fetched model's id equals \(first.debugDescription)\(when)")
                try checkEqual(found.first?[keyPath: note], "second", "the note: the insert of a stored key updated that model\(when)")
            }
        }
    }
}
