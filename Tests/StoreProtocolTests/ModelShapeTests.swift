import Foundation
import MemoryStore
import Observation
import StoreProtocol
import Testing

/// Issue 12: every model shape either works exactly or is refused when the container is created,
/// with an error naming the property and what to do.
@Suite struct ModelShapeTests {
    // MARK: Shapes that work

    struct Address: Codable, Hashable, Sendable {
        var street: String
        var city: String
    }

    /// A `let id`, a nested Codable value, an optional, and two properties kept out of the store
    /// (a weak reference and a lazy cache, both left out of `CodingKeys`).
    final class Place: PersistentModel, Codable {
        let id: UUID
        var name: String
        var address: Address
        var note: String?
        weak var delegate: Place?
        lazy var shout: String = name.uppercased()

        init(name: String, street: String) {
            id = UUID()
            self.name = name
            address = Address(street: street, city: "Oslo")
        }

        enum CodingKeys: String, CodingKey { case id, name, address, note }

        static let schemaMetadata = SchemaMetadata<Place>(
            attributes: [\.id, \.name, \.address, \.note],
            unique: [[\.address]],
            preservedOnDeletion: [\.name, \.address])
    }

    private func makeContext() throws -> ModelContext {
        ModelContext(try ModelContainer(for: Place.self, configurations: MemoryStoreConfiguration()))
    }

    @Test func attributesAreTheListedPropertiesByTheirStoredNames() throws {
        let entity = try #require(Schema(Place.self).entity(for: Place.self))
        #expect(entity.attributeNames == ["id", "name", "address", "note"])
        #expect(entity.uniqueConstraints == [["address"]])
        #expect(Place.attributeName(of: \Place.name) == "name")
        #expect(Place.attributeName(of: \Place.id) == "id")
        #expect(Place.attributeName(of: \Place.address.street) == nil)
        #expect(Place.attributeName(of: \Place.shout) == nil)
    }

    /// Rollback writes the saved values back into the instance the caller holds, through the
    /// listed key paths: the instance, its unstored properties and its identity are kept.
    @Test func rollbackRestoresTheSameInstance() throws {
        let context = try makeContext()
        let place = Place(name: "Harbour", street: "Kaia 1")
        let friend = Place(name: "Friend", street: "Gata 2")
        place.delegate = friend
        context.insert(place)
        try context.save()
        place.name = "Changed"
        place.address.street = "Elsewhere"
        place.note = "temporary"
        #expect(context.hasChanges)
        context.rollback()
        #expect(place.name == "Harbour")
        #expect(place.address == Address(street: "Kaia 1", city: "Oslo"))
        #expect(place.note == nil)
        #expect(place.delegate === friend)
        #expect(!context.hasChanges)
        let fetched = try context.fetch(FetchDescriptor<Place>())
        #expect(fetched.count == 1 && fetched[0] === place)
    }

    /// A history update's key paths are `==` to the ones a user writes, and a tombstone reads by them.
    @Test func historyKeyPathsAreTheUsersOwn() throws {
        let context = try makeContext()
        let place = Place(name: "Harbour", street: "Kaia 1")
        context.insert(place)
        try context.save()
        let start = try context.container.currentHistoryToken()
        place.address.city = "Bergen"
        try context.save()
        context.delete(place)
        try context.save()
        let changes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: start))
            .flatMap(\.changes)
        guard case .update(let update as DefaultHistoryUpdate<Place>) = changes.first else {
            Issue.record("expected an update first, got \(changes)")
            return
        }
        #expect(update.updatedAttributes.count == 1)
        #expect(update.updated(\Place.address))
        #expect(!update.updated(\Place.name))
        guard case .delete(let delete as DefaultHistoryDelete<Place>) = changes.last else {
            Issue.record("expected a delete last, got \(changes)")
            return
        }
        #expect(delete.tombstone[\Place.name] == "Harbour")
        #expect(delete.tombstone[\Place.address] == Address(street: "Kaia 1", city: "Bergen"))
        #expect(delete.tombstone.map(\.attributeName) == ["name", "address"])
    }

    /// A property the model encodes but its metadata does not list is refused at save, by name,
    /// and nothing is saved.
    final class Unlisted: PersistentModel, Codable {
        var id = UUID()
        var name = "a"
        var secret = "s"
        static let schemaMetadata = SchemaMetadata<Unlisted>(attributes: [\.id, \.name])
    }

    @Test func anEncodedPropertyTheMetadataDoesNotListIsRefusedAtSave() throws {
        let container = try ModelContainer(for: Unlisted.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        context.insert(Unlisted())
        let error = try #require(throws: ModelContextError.self) { try context.save() }
        #expect(error.code == .unencodableModel)
        #expect(error.message.contains("`secret`"))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Unlisted>()) == 0)
    }

    /// An @Observable model: its CodingKeys name each property's storage, its metadata names each
    /// key path the same. A `let` is no observed property: it is stored under its own name.
    @Observable final class ObservedPlace: PersistentModel, Codable {
        let id: UUID
        var name: String
        var street: String
        var note: String?
        @ObservationIgnored weak var delegate: ObservedPlace?

        init(name: String, street: String) {
            id = UUID()
            self.name = name
            self.street = street
        }

        enum CodingKeys: String, CodingKey {
            case id
            case _name = "name"
            case _street = "street"
            case _note = "note"
        }

        static let schemaMetadata = SchemaMetadata<ObservedPlace>(
            attributes: [.attribute("id", \.id), .attribute("name", \.name), .attribute("street", \.street), .attribute("note", \.note)],
            unique: [[\.street]],
            preservedOnDeletion: [\.name])
    }

    /// A plain model may name its attributes, by their property names.
    final class PlainNamed: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        static let schemaMetadata = SchemaMetadata<PlainNamed>(attributes: [.attribute("id", \.id), .attribute("name", \.name)])
    }

    @Test func anObservableModelsAttributesAreNamedByItsMetadata() throws {
        try Schema(ObservedPlace.self, PlainNamed.self).validate()
        let entity = try #require(Schema(ObservedPlace.self).entity(for: ObservedPlace.self))
        #expect(entity.attributeNames == ["id", "name", "street", "note"])
        #expect(entity.uniqueConstraints == [["street"]])
        #expect(entity.preservedOnDeletion == ["name"])
        #expect(ObservedPlace.attributeName(of: \ObservedPlace.street) == "street")
        #expect(ObservedPlace.attributeName(of: \ObservedPlace.note) == "note")
        #expect(ObservedPlace.attributeName(of: \ObservedPlace.delegate) == nil)
        #expect(Schema(PlainNamed.self).entity(for: PlainNamed.self)?.attributeNames == ["id", "name"])
    }

    /// Rollback sets each attribute through its key path, so an observer of the instance hears it.
    @Test func rollbackRestoresAnObservableModelAndItsObserversHearIt() throws {
        let context = ModelContext(try ModelContainer(for: ObservedPlace.self, configurations: MemoryStoreConfiguration()))
        let place = ObservedPlace(name: "Harbour", street: "Kaia 1")
        context.insert(place)
        try context.save()
        place.name = "Changed"
        place.street = "Elsewhere"
        place.note = "temporary"
        let heard = Locked(false)
        withObservationTracking { _ = place.name } onChange: { heard.withLock { $0 = true } }
        context.rollback()
        #expect(place.name == "Harbour" && place.street == "Kaia 1" && place.note == nil)
        #expect(heard.withLock { $0 })
        let fetched = try context.fetch(FetchDescriptor<ObservedPlace>(predicate: #Predicate { $0.street == "Kaia 1" }))
        #expect(fetched.count == 1 && fetched.first === place)
    }

    // MARK: Shapes that are refused when the container is created

    final class Owner: Codable {
        var name = "owner"
    }

    final class WeakReference: PersistentModel, Codable {
        var id = UUID()
        weak var owner: Owner?
        static let schemaMetadata = SchemaMetadata<WeakReference>(attributes: [\.id, \.owner])
    }

    final class UnownedReference: PersistentModel, Codable {
        var id = UUID()
        unowned var owner: Owner
        init(owner: Owner) { self.owner = owner }
        static let schemaMetadata = SchemaMetadata<UnownedReference>(attributes: [\.id, \.owner])
    }

    @propertyWrapper struct Trimmed: Codable {
        var wrappedValue: String { didSet { wrappedValue = wrappedValue.trimmingCharacters(in: .whitespaces) } }
        init(wrappedValue: String) { self.wrappedValue = wrappedValue }
    }

    final class Wrapped: PersistentModel, Codable {
        var id = UUID()
        @Trimmed var title = ""
        static let schemaMetadata = SchemaMetadata<Wrapped>(attributes: [\.id, \.title])
    }

    /// An @Observable model that does not name its attributes.
    @Observable final class ObservableUnnamed: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        enum CodingKeys: String, CodingKey {
            case _id = "id"
            case _name = "name"
        }
        static let schemaMetadata = SchemaMetadata<ObservableUnnamed>(attributes: [\.id, \.name])
    }

    /// A name that is no property of the model.
    @Observable final class ObservableUnknownName: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        enum CodingKeys: String, CodingKey {
            case _id = "id"
            case _name = "name"
        }
        static let schemaMetadata = SchemaMetadata<ObservableUnknownName>(
            attributes: [.attribute("id", \.id), .attribute("title", \.name)])
    }

    /// A name of a property of another type than the key path's.
    @Observable final class ObservableWrongType: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        var count = 0
        enum CodingKeys: String, CodingKey {
            case _id = "id"
            case _name = "name"
            case _count = "count"
        }
        static let schemaMetadata = SchemaMetadata<ObservableWrongType>(
            attributes: [.attribute("id", \.id), .attribute("count", \.name), .attribute("name", \.count)])
    }

    /// One name given to two key paths.
    @Observable final class ObservableNamedTwice: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        var title = ""
        enum CodingKeys: String, CodingKey {
            case _id = "id"
            case _name = "name"
            case _title = "title"
        }
        static let schemaMetadata = SchemaMetadata<ObservableNamedTwice>(
            attributes: [.attribute("id", \.id), .attribute("name", \.name), .attribute("name", \.title)])
    }

    /// An unnamed relationship of an @Observable model.
    @Observable final class ObservableUnnamedRelationship: PersistentModel, Codable {
        var id = UUID()
        var children: [ObservableUnnamedRelationship] = []
        enum CodingKeys: String, CodingKey {
            case _id = "id"
            case _children = "children"
        }
        static let schemaMetadata = SchemaMetadata<ObservableUnnamedRelationship>(
            attributes: [.attribute("id", \.id)], relationships: [.relationship(\.children)])
    }

    /// A plain model naming an attribute otherwise than its property.
    final class PlainMisnamed: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        static let schemaMetadata = SchemaMetadata<PlainMisnamed>(attributes: [.attribute("id", \.id), .attribute("title", \.name)])
    }

    /// An @Observable model listing nothing: the suggestion names its properties, not the registrar.
    @Observable final class ObservableNothingListed: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        enum CodingKeys: String, CodingKey {
            case _id = "id"
            case _name = "name"
        }
        static let schemaMetadata = SchemaMetadata<ObservableNothingListed>(attributes: [])
    }

    class BaseRecord: Codable {
        var id = UUID()
    }

    final class DerivedRecord: BaseRecord, PersistentModel {
        var extra = 0
        static let schemaMetadata = SchemaMetadata<DerivedRecord>(attributes: [\.id, \.extra])
    }

    final class LazyAttribute: PersistentModel, Codable {
        var id = UUID()
        lazy var cache = 0
        static let schemaMetadata = SchemaMetadata<LazyAttribute>(attributes: [\.id, \.cache])
    }

    final class Observed: PersistentModel, Codable {
        var id = UUID()
        var count = 0 { didSet { print(count) } }
        static let schemaMetadata = SchemaMetadata<Observed>(attributes: [\.id, \.count])
    }

    final class NestedMetadata: PersistentModel, Codable {
        var id = UUID()
        var address = Address(street: "", city: "")
        static let schemaMetadata = SchemaMetadata<NestedMetadata>(
            attributes: [\.id, \.address],
            unique: [[\.address.street]])
    }

    /// A nested key path among the attributes, beside a top-level property of the same last name.
    final class NestedAttribute: PersistentModel, Codable {
        var id = UUID()
        var street = ""
        var address = Address(street: "", city: "")
        static let schemaMetadata = SchemaMetadata<NestedAttribute>(attributes: [\.id, \.address.street])
    }

    final class LetAttribute: PersistentModel, Codable {
        var id = UUID()
        let createdAt: Date
        init() { createdAt = Date() }
        static let schemaMetadata = SchemaMetadata<LetAttribute>(attributes: [\.id, \.createdAt])
    }

    final class NothingListed: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        static let schemaMetadata = SchemaMetadata<NothingListed>(attributes: [])
    }

    final class ListedTwice: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        static let schemaMetadata = SchemaMetadata<ListedTwice>(attributes: [\.id, \.name, \.name])
    }

    final class NoID: PersistentModel, Codable {
        var id = UUID()
        var name = ""
        static let schemaMetadata = SchemaMetadata<NoID>(attributes: [\.name])
    }

    /// A model-typed property listed as an attribute instead of a relationship.
    final class ModelAsAttribute: PersistentModel, Codable {
        var id = UUID()
        var partner: ListedTwice?
        static let schemaMetadata = SchemaMetadata<ModelAsAttribute>(attributes: [\.id, \.partner])
    }

    final class Pet: PersistentModel, Codable {
        var id = UUID()
        var owner: PetOwner?
        static let schemaMetadata = SchemaMetadata<Pet>(attributes: [\.id])   // `owner` not listed
    }

    /// An inverse that the other side does not list among its relationships.
    final class PetOwner: PersistentModel, Codable {
        var id = UUID()
        var pets: [Pet] = []
        static let schemaMetadata = SchemaMetadata<PetOwner>(
            attributes: [\.id], relationships: [.relationship(\.pets, inverse: \Pet.owner)])
    }

    /// Each refused shape, with words its error must contain: the property and what is wrong.
    static var refused: [(any PersistentModel.Type, [String])] { [
        (WeakReference.self, ["owner", "weak"]),
        (UnownedReference.self, ["owner", "unowned"]),
        (Wrapped.self, ["title", "property wrapper"]),
        (ObservableUnnamed.self, ["of type String, is not named (its properties of type String: name)", "@Observable",
                                  "`.attribute(\"name\", \\.name)`", "`.attribute(\"id\", \\.id)`"]),
        (ObservableUnknownName.self, ["attribute named \"title\", of type String, is not a property of it",
                                      "no `_title` (its properties of type String: name)", "`case _title = \"title\"`"]),
        (ObservableWrongType.self, ["attribute named \"count\" has a key path of type String",
                                    "ObservableWrongType.count is of type Int", "`.attribute(\"count\", \\.count)`",
                                    "attribute named \"name\" has a key path of type Int"]),
        (ObservableNamedTwice.self, ["names two attributes \"name\""]),
        (ObservableUnnamedRelationship.self, ["a relationship of ObservableUnnamedRelationship, to ObservableUnnamedRelationship,",
                                              "is not named",
                                              "`.relationship(\"children\", \\.children, …)`"]),
        (PlainMisnamed.self, ["PlainMisnamed.name is named \"title\"", "`.attribute(\"name\", \\.name)`"]),
        (ObservableNothingListed.self, ["lists no attributes",
                                        "attributes: [.attribute(\"id\", \\.id), .attribute(\"name\", \\.name)]"]),
        (DerivedRecord.self, ["inherits from", "BaseRecord"]),
        (LazyAttribute.self, ["cache", "lazy"]),
        (Observed.self, ["count", "didSet"]),
        (NestedMetadata.self, ["address.street", "nested"]),
        (NestedAttribute.self, ["of type String, is not a plain stored property", "nested"]),
        (LetAttribute.self, ["createdAt", "`let`"]),
        (NothingListed.self, ["lists no attributes", "attributes: [\\.id, \\.name]"]),
        (ListedTwice.self, ["\\.name twice"]),
        (NoID.self, ["does not list \\.id"]),
        (ModelAsAttribute.self, ["partner", "list it among the relationships"]),
        (PetOwner.self, ["PetOwner.pets", "inverse", "Pet's relationships"]),
    ] }

    @Test(arguments: refused.indices)
    func aShapeThatCannotBeStoredExactlyIsRefusedAtContainerCreation(_ index: Int) throws {
        let (type, words) = Self.refused[index]
        let error = try #require(throws: DataStoreError.self, "\(type)") {
            _ = try ModelContainer(for: Schema([type]), configurations: [MemoryStoreConfiguration()])
        }
        #expect(error.code == .invalidSchema)
        for word in words {
            #expect(error.message.contains(word), "\(type): \(error.message)")
        }
    }
}
