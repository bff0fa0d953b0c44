import Foundation
import StoreProtocol

/// The talk's trip with its relationships: a bucket list (to-many, cascade, with an inverse), a
/// living accommodation (to-one, nullify, with an inverse), a guide (to-one, deny, no inverse)
/// and tags (to-many, no action, no inverse). Its items preserve their trip on deletion.
public final class SuiteVoyage: PersistentModel {
    public var id = UUID()
    public var name: String
    public var bucketList: [SuiteBucketItem] = [SuiteBucketItem]()
    public var livingAccommodation: SuiteAccommodation?
    public var guide: SuiteGuide?
    public var tags: [SuiteTag] = []

    public init(name: String) { self.name = name }

    public static let schemaMetadata = SchemaMetadata<SuiteVoyage>(
        attributes: [\.id, \.name],
        relationships: [
            .relationship(\.bucketList, deleteRule: .cascade, inverse: \SuiteBucketItem.voyage),
            .relationship(\.livingAccommodation, inverse: \SuiteAccommodation.voyage),
            .relationship(\.guide, deleteRule: .deny),
            .relationship(\.tags, deleteRule: .noAction),
        ])
}

public final class SuiteBucketItem: PersistentModel {
    public var id = UUID()
    public var title: String
    public var voyage: SuiteVoyage?

    public init(title: String) { self.title = title }

    public static let schemaMetadata = SchemaMetadata<SuiteBucketItem>(
        attributes: [\.id, \.title],
        relationships: [.relationship(\.voyage)],
        preservedOnDeletion: [\.title, \.voyage])
}

public final class SuiteAccommodation: PersistentModel {
    public var id = UUID()
    public var place: String
    public var voyage: SuiteVoyage?

    public init(place: String) { self.place = place }

    public static let schemaMetadata = SchemaMetadata<SuiteAccommodation>(
        attributes: [\.id, \.place], relationships: [.relationship(\.voyage)])
}

public final class SuiteGuide: PersistentModel {
    public var id = UUID()
    public var name: String

    public init(name: String) { self.name = name }

    public static let schemaMetadata = SchemaMetadata<SuiteGuide>(attributes: [\.id, \.name])
}

public final class SuiteTag: PersistentModel {
    public var id = UUID()
    public var label: String

    public init(label: String) { self.label = label }

    public static let schemaMetadata = SchemaMetadata<SuiteTag>(attributes: [\.id, \.label])
}
