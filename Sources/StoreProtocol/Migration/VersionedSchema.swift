/// One version of an app's models, in SwiftData's shape: the version and the model types as they
/// were in it (usually nested in the conforming enum, each keeping its entity name).
///
/// ```swift
/// enum TripsSchemaV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///
///     final class Trip: PersistentModel, Codable { … }
/// }
/// ```
public protocol VersionedSchema {
    /// This version's identifier; later versions have greater ones.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version (related types are included on their own).
    static var models: [any PersistentModel.Type] { get }
}

extension Schema {
    /// The schema of one version of an app's models, carrying its version identifier.
    public init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}
