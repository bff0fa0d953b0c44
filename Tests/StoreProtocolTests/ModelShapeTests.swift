import DataStores
import Foundation
import MemoryStore
import StoreProtocol
import Testing

/// The shapes a SwiftData user writes in an `@Model` class, and what each does: every one saved,
/// fetched in a fresh context and its values compared; then the declarations the compiler cannot
/// judge alone (they need the other models) and that a container refuses with
/// `DataStoreError.invalidSchema`. Refusals the compiler makes are in ModelCompileTests.
@Suite struct ModelShapeTests {
    /// Saves `model` and fetches the one `Model` a fresh context of the same container reads.
    private func roundTrip<Model: PersistentModel>(_ model: Model, with others: [any PersistentModel.Type] = []) throws -> Model {
        let container = try ModelContainer(for: Schema([Model.self] + others), configurations: [MemoryStoreConfiguration()])
        let context = ModelContext(container)
        context.insert(model)
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Model>())
        #expect(fetched.count == 1)
        let read = try #require(fetched.first)
        #expect(read !== model && read.persistentModelID == model.persistentModelID)
        return read
    }

    // MARK: Identity

    /// A declared `id` is the primary key, as declared: a query by it finds the model.
    @Model final class Airport {
        var id: String
        var name: String
        init(code: String, name: String) {
            id = code
            self.name = name
        }
    }

    @Test func aDeclaredIDIsThePrimaryKey() throws {
        let read = try roundTrip(Airport(code: "KOA", name: "Kona"))
        #expect(read.id == "KOA" && read.name == "Kona")
        #expect(read.persistentModelID.primaryKey == .string("KOA"))
        #expect(Schema(Airport.self).entity(for: Airport.self)?.attributeNames == ["id", "name"])
    }

    /// Without a declared `id`, identity is implicit: a `UUID` the model keeps through the store.
    @Model final class Postcard {
        var message: String
        init(_ message: String) { self.message = message }
    }

    @Test func anImplicitIDIsKeptThroughTheStore() throws {
        let card = Postcard("Greetings")
        let read = try roundTrip(card)
        #expect(read.id == card.id && read.message == "Greetings")
        #expect(read.persistentModelID.primaryKey == .uuid(card.id))
        #expect(Schema(Postcard.self).entity(for: Postcard.self)?.attributeNames == ["id", "message"])
    }

    /// A `let` without an initial value is persisted: set once by `init`, read back from the store.
    @Model final class Receipt {
        let issuedAt: Date
        let total: Decimal
        var paid = false
        init(total: Decimal) {
            issuedAt = Date(timeIntervalSince1970: 1_700_000_000.25)
            self.total = total
        }
    }

    @Test func aLetWithoutADefaultIsPersisted() throws {
        let read = try roundTrip(Receipt(total: Decimal(string: "12.30")!))
        #expect(read.issuedAt == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(read.total == Decimal(string: "12.30")!)
        #expect(!read.paid)
    }

    // MARK: Relationships

    @Model final class Lodging {
        var hotel: String
        var trip: Voyage?
        init(_ hotel: String) { self.hotel = hotel }
    }

    @Model final class Stop {
        var place: String
        var voyage: Voyage?
        init(_ place: String) { self.place = place }
    }

    /// An optional to-one (`lodging`) and a non-optional to-many (`stops`), each inferred as the
    /// inverse of the one relationship back.
    @Model final class Voyage {
        var name: String
        var lodging: Lodging?
        @Relationship(deleteRule: .cascade) var stops: [Stop] = []
        init(_ name: String) { self.name = name }
    }

    @Test func optionalAndToManyRelationshipsRoundTrip() throws {
        let voyage = Voyage("Norway")
        voyage.lodging = Lodging("Bryggen")
        voyage.stops = [Stop("Bergen"), Stop("Flåm")]
        let read = try roundTrip(voyage)
        #expect(read.name == "Norway")
        #expect(read.lodging?.hotel == "Bryggen")
        #expect(read.lodging?.trip === read)
        #expect(Set(read.stops.map(\.place)) == ["Bergen", "Flåm"])
        #expect(read.stops.allSatisfy { $0.voyage === read })
        let entity = try #require(Schema(Voyage.self).entity(for: Voyage.self))
        #expect(entity.relationships.map(\.name) == ["lodging", "stops"])
        #expect(entity.relationships.map(\.inverse) == ["trip", "voyage"])
        #expect(entity.relationships.map(\.isToMany) == [false, true])
        #expect(entity.relationships.map(\.deleteRule) == [.nullify, .cascade])
    }

    /// An optional relationship left `nil` reads back `nil`; an empty to-many reads back empty.
    @Test func emptyRelationshipsRoundTrip() throws {
        let read = try roundTrip(Voyage("Home"))
        #expect(read.lodging == nil && read.stops.isEmpty)
    }

    /// Two relationships of `Route` to `Harbour` and one back: more than one candidate, so no
    /// inverse is inferred for either side (SwiftData's rule); each is stored on its own.
    @Model final class Harbour {
        var name: String
        var route: Route?
        init(_ name: String) { self.name = name }
    }

    @Model final class Route {
        var from: Harbour?
        var to: Harbour?
        init() {}
    }

    @Test func twoCandidateInversesPairWithNeither() throws {
        let schema = Schema(Route.self)
        #expect(schema.entity(for: Route.self)?.relationships.map(\.inverse) == [nil, nil])
        #expect(schema.entity(for: Harbour.self)?.relationships.map(\.inverse) == [nil])
        let route = Route()
        route.from = Harbour("Bergen")
        route.to = Harbour("Stavanger")
        let read = try roundTrip(route)
        #expect(read.from?.name == "Bergen" && read.to?.name == "Stavanger")
        #expect(read.from?.route == nil && read.to?.route == nil)
    }

    // MARK: Properties that are not persisted

    enum Defaults {
        static let rating = 3
        static let currency = "NOK"
    }

    @Model final class Hotel {
        static let chain = "Fjord Hotels"
        static var count: Int { 2 }
        var name: String
        var rating = Defaults.rating
        var currency: String = Defaults.currency
        @Transient var isSelected = false
        @Transient var note: String?
        @Attribute(.ephemeral) var isExpanded = false
        lazy var shout: String = name.uppercased()
        var title: String { "\(name) (\(Self.chain))" }
        init(_ name: String) { self.name = name }
    }

    /// `@Transient`, `.ephemeral`, `lazy`, computed and static properties are not stored: a model
    /// read from the store has their initial values; an initial value taken from a static is
    /// stored like any other.
    @Test func propertiesThatAreNotStoredKeepTheirInitialValues() throws {
        #expect(Schema(Hotel.self).entity(for: Hotel.self)?.attributeNames == ["id", "name", "rating", "currency"])
        let hotel = Hotel("Bryggen")
        hotel.rating = 5
        hotel.isSelected = true
        hotel.note = "sea view"
        hotel.isExpanded = true
        #expect(hotel.shout == "BRYGGEN")
        #expect(try hotel.storedValues().keys.sorted() == ["currency", "id", "name", "rating"])
        let read = try roundTrip(hotel)
        #expect(read.name == "Bryggen" && read.rating == 5 && read.currency == "NOK")
        #expect(!read.isSelected && read.note == nil && !read.isExpanded)
        #expect(read.shout == "BRYGGEN" && read.title == "Bryggen (Fjord Hotels)")
        #expect(Hotel.count == 2)
    }

    /// An initial value taken from a static is the attribute's default, as a lightweight
    /// migration adds it to stored rows.
    @Test func anInitialValueFromAStaticIsTheDefault() throws {
        let entity = try #require(Schema(Hotel.self).entity(for: Hotel.self))
        #expect(entity.attributes.first { $0.name == "rating" }?.defaultValue == .int(3))
        #expect(entity.attributes.first { $0.name == "currency" }?.defaultValue == .string("NOK"))
    }

    // MARK: Composite attributes

    struct Address: Codable, Hashable, Sendable {
        var street: String
        var number: Int?
    }

    enum Kind: String, Codable, Sendable { case cabin, hostel }

    enum Payment: Codable, Hashable, Sendable {
        case cash
        case card(last4: String)
    }

    @Model final class Booking {
        var address: Address
        var kind = Kind.cabin
        var payment: Payment = .cash
        var prices: [String: Double] = [:]
        var nights: [Date: Int] = [:]
        var tags: [String] = []
        init(address: Address) { self.address = address }
    }

    @Test func codableStructEnumAndDictionaryAttributesRoundTrip() throws {
        let booking = Booking(address: Address(street: "Bryggen", number: nil))
        booking.kind = .hostel
        booking.payment = .card(last4: "4242")
        booking.prices = ["summer": 120.5, "winter": 80]
        booking.nights = [Date(timeIntervalSince1970: 86_400): 2]
        booking.tags = ["sea", "old town"]
        let read = try roundTrip(booking)
        #expect(read.address == Address(street: "Bryggen", number: nil))
        #expect(read.kind == .hostel)
        #expect(read.payment == .card(last4: "4242"))
        #expect(read.prices == ["summer": 120.5, "winter": 80])
        #expect(read.nights == [Date(timeIntervalSince1970: 86_400): 2])
        #expect(read.tags == ["sea", "old town"])
        #expect(try booking.storedValues()["kind"] == .string("hostel"))
    }

    /// A query compares a `RawRepresentable` enum attribute by its raw value.
    @Test func aQueryFindsAnEnumAttribute() throws {
        let container = try ModelContainer(for: Booking.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let cabin = Booking(address: Address(street: "a"))
        let hostel = Booking(address: Address(street: "b"))
        hostel.kind = .hostel
        context.insert(cabin)
        context.insert(hostel)
        try context.save()
        let wanted = Kind.hostel
        let found = try ModelContext(container).fetch(FetchDescriptor<Booking>(predicate: #Predicate { $0.kind == wanted }))
        #expect(found.map(\.address.street) == ["b"])
    }

    // MARK: Rollback and history of a composite attribute

    /// A composite attribute (unique, kept in tombstones) beside plain and unstored properties.
    @Model final class Place {
        #Unique<Place>([\.address])
        @Attribute(.preserveValueOnDeletion) var name: String
        @Attribute(.preserveValueOnDeletion) var address: Address
        var note: String?
        @Transient weak var delegate: Place?
        init(name: String, street: String) {
            self.name = name
            address = Address(street: street, number: 1)
        }
    }

    private func placeContext() throws -> ModelContext {
        ModelContext(try ModelContainer(for: Place.self, configurations: MemoryStoreConfiguration()))
    }

    /// Rollback writes the saved values back into the instance the caller holds: the instance,
    /// its unstored properties and its identity are kept, and an observer hears the change.
    @Test func rollbackRestoresTheSameInstanceAndItsObserversHearIt() throws {
        let context = try placeContext()
        let place = Place(name: "Harbour", street: "Kaia")
        let friend = Place(name: "Friend", street: "Gata")
        place.delegate = friend
        context.insert(place)
        try context.save()
        place.name = "Changed"
        place.address.street = "Elsewhere"
        place.note = "temporary"
        #expect(context.hasChanges)
        let heard = Locked(false)
        withObservationTracking { _ = place.name } onChange: { heard.withLock { $0 = true } }
        context.rollback()
        #expect(heard.withLock { $0 })
        #expect(place.name == "Harbour" && place.address == Address(street: "Kaia", number: 1) && place.note == nil)
        #expect(place.delegate === friend)
        #expect(!context.hasChanges)
        let fetched = try context.fetch(FetchDescriptor<Place>(predicate: #Predicate { $0.name == "Harbour" }))
        #expect(fetched.count == 1 && fetched.first === place)
    }

    /// A history update names exactly the attribute set, by the key path a user writes, and a
    /// tombstone reads the preserved values by theirs.
    @Test func historyKeyPathsAreTheUsersOwn() throws {
        let context = try placeContext()
        let place = Place(name: "Harbour", street: "Kaia")
        context.insert(place)
        try context.save()
        let start = try context.container.currentHistoryToken()
        place.address.number = 2
        try context.save()
        context.delete(place)
        try context.save()
        let changes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: start)).flatMap(\.changes)
        guard case .update(let update as DefaultHistoryUpdate<Place>) = changes.first else {
            Issue.record("expected an update first, got \(changes)")
            return
        }
        #expect(update.updatedAttributes.map { $0 as AnyKeyPath } == [\Place.address])
        #expect(update.updated(\Place.address) && !update.updated(\Place.name))
        guard case .delete(let delete as DefaultHistoryDelete<Place>) = changes.last else {
            Issue.record("expected a delete last, got \(changes)")
            return
        }
        #expect(delete.tombstone[\Place.name] == "Harbour")
        #expect(delete.tombstone[\Place.address] == Address(street: "Kaia", number: 2))
        #expect(delete.tombstone[\Place.note] == nil)
    }

    // MARK: Refused when the container is created

    /// Two model types with one entity name.
    @Model final class Ticket {
        var code = ""
    }

    @Model final class OtherTicket {
        static var entityName: String { "Ticket" }
        var seat = ""
    }

    @Test func twoEntitiesWithOneNameAreRefused() throws {
        let error = try #require(throws: DataStoreError.self) {
            _ = try ModelContainer(for: Ticket.self, OtherTicket.self, configurations: MemoryStoreConfiguration())
        }
        #expect(error.code == .invalidSchema)
        #expect(error.message == "The schema is not valid: two model types share an entity name; "
            + "override `entityName` on one of them.")
    }

    /// `Crew.ship` names `Ship.captain` as its inverse, which names another inverse itself.
    @Model final class Ship {
        var name = ""
        @Relationship(inverse: \Crew.boat) var captain: Crew?
        init() {}
    }

    @Model final class Crew {
        var boat: Ship?
        @Relationship(inverse: \Ship.captain) var ship: Ship?
        init() {}
    }

    @Test func anInverseThatNamesAnotherInverseIsRefused() throws {
        let error = try #require(throws: DataStoreError.self) {
            _ = try ModelContainer(for: Ship.self, configurations: MemoryStoreConfiguration())
        }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("Crew.ship names Ship.captain as its inverse, which is not a relationship of Ship "
            + "back to Crew (or names another inverse); list it among Ship's relationships"), "\(error.message)")
    }
}
