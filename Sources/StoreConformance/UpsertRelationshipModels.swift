import Foundation
import StoreProtocol

/// An expedition: a unique name and a to-many relationship, so that a colliding insert is an
/// upsert of a model with related models (the upsert cases of `RelatedUpsertCases`).
public final class SuiteExpedition: PersistentModel, Codable {
    public var id = UUID()
    /// The unique value: an expedition inserted with a stored name updates the stored one.
    public var name: String
    /// A plain attribute the upsert cases change.
    public var note: String
    /// To-many, cascade, inverse ``SuiteStop/expedition``: what an upsert replaces.
    public var stops: [SuiteStop] = []

    /// Makes an expedition with a new `id` and no stops.
    public init(name: String, note: String = "") {
        self.name = name
        self.note = note
    }

    public static let schemaMetadata = SchemaMetadata<SuiteExpedition>(
        attributes: [\.id, \.name, \.note],
        relationships: [.relationship(\.stops, deleteRule: .cascade, inverse: \SuiteStop.expedition)],
        unique: [[\.name]])
}

/// A stop of a ``SuiteExpedition``.
public final class SuiteStop: PersistentModel, Codable {
    public var id = UUID()
    /// The stop's place, which the cases read.
    public var place: String
    /// The inverse of ``SuiteExpedition/stops``.
    public var expedition: SuiteExpedition?

    /// Makes a stop with a new `id`, of no expedition.
    public init(place: String) { self.place = place }

    public static let schemaMetadata = SchemaMetadata<SuiteStop>(
        attributes: [\.id, \.place], relationships: [.relationship(\.expedition)])
}
