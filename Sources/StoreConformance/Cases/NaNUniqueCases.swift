import DataStores

/// A model with a unique `Double`, for unique values that hold a NaN.
@Model
public final class SuiteUniqueReading {
    /// The model's id.
    public var id: UUID
    /// The unique value, chosen by the case.
    @Attribute(.unique) public var value: Double
    /// Which save wrote the model.
    public var note: String

    /// Makes a model with a new id and this value and note.
    public init(value: Double, note: String) {
        self.id = UUID()
        self.value = value
        self.note = note
    }
}

/// A NaN is `==` to no value, itself included, so unique values holding one never collide, as
/// `nil` never does: every model is kept. A store that keys unique values by their bytes (a text
/// column, a hash) would find two NaNs the same key and refuse or merge the second model.
enum NaNUniqueCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "upserts", name: "aNaNNeverCollidesOnAUniqueConstraint", requires: .updates) { target in
            let configuration = try target.makeConfiguration()
            let container = try ModelContainer(for: Schema([SuiteUniqueReading.self]), configurations: [configuration])
            let first = ModelContext(container)
            first.insert(SuiteUniqueReading(value: .nan, note: "first"))
            first.insert(SuiteUniqueReading(value: .nan, note: "second"))
            first.insert(SuiteUniqueReading(value: 1, note: "one"))
            try first.save()
            let again = ModelContext(container)
            again.insert(SuiteUniqueReading(value: .nan, note: "third"))
            again.insert(SuiteUniqueReading(value: 1, note: "one again"))   // a real collision: updates "one"
            try again.save()
            let notes = try ModelContext(container).fetch(FetchDescriptor<SuiteUniqueReading>()).map(\.note).sorted()
            try checkEqual(notes, ["first", "one again", "second", "third"],
                           "models: NaN values never collide, a repeated 1 updates")
        },
    ]
}
