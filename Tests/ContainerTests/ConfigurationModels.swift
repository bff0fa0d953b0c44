import DataStores

// Models of the ModelConfiguration, default-store and SwiftDataError tests: a trip that reaches
// its bucket list and lodging only through relationships, and an unrelated note.

@Model final class ConfigTrip {
    var name: String
    @Relationship(deleteRule: .cascade) var bucketList: [ConfigBucketItem] = []
    var lodging: ConfigLodging?
    init(name: String) { self.name = name }
}

@Model final class ConfigBucketItem {
    var title: String
    var trip: ConfigTrip?
    init(title: String) { self.title = title }
}

@Model final class ConfigLodging {
    var placeName: String
    init(placeName: String) { self.placeName = placeName }
}

@Model final class ConfigNote {
    var text: String
    init(text: String) { self.text = text }
}

/// A note with the same entity name as ``ConfigNote`` and another attribute: a store of
/// `ConfigNote`s cannot be read as these.
@Model final class ConfigRenamedNote {
    static var entityName: String { ConfigNote.entityName }
    var body: String
    init(body: String) { self.body = body }
}

/// An owner whose pets deny its deletion.
@Model final class ConfigOwner {
    @Relationship(deleteRule: .deny) var pets: [ConfigPet] = []
    init() {}
}

@Model final class ConfigPet {
    var owner: ConfigOwner?
    init() {}
}
