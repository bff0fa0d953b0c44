import DataStores

/// An expedition: a unique name and a to-many relationship, so that a colliding insert is an
/// upsert of a model with related models (the upsert cases of `RelatedUpsertCases`).
@Model
public final class SuiteExpedition {
    public var id = UUID()
    /// The unique value: an expedition inserted with a stored name updates the stored one.
    @Attribute(.unique) public var name: String
    /// A plain attribute the upsert cases change.
    public var note: String
    /// To-many, cascade, inverse ``SuiteStop/expedition``: what an upsert replaces.
    @Relationship(deleteRule: .cascade, inverse: \SuiteStop.expedition) public var stops: [SuiteStop] = []

    /// Makes an expedition with a new `id` and no stops.
    public init(name: String, note: String = "") {
        self.name = name
        self.note = note
    }
}

/// A stop of a ``SuiteExpedition``.
@Model
public final class SuiteStop {
    public var id = UUID()
    /// The stop's place, which the cases read.
    public var place: String
    /// The inverse of ``SuiteExpedition/stops``.
    public var expedition: SuiteExpedition?

    /// Makes a stop with a new `id`, of no expedition.
    public init(place: String) { self.place = place }
}
