import Foundation
import Observation
import StoreProtocol

// What `@Model` expands to (see Sources/DataStoresMacroKit), written by hand so that the
// runtime is tested without the macro. Source of HandTrip:
//
//     @Model class HandTrip {
//         #Unique<HandTrip>([\.name, \.startDate])
//         #Index<HandTrip>([\.name], [\.startDate])
//         @Attribute(.preserveValueOnDeletion, originalName: "title") var name: String
//         var startDate = Date.now
//         @Relationship(deleteRule: .cascade, inverse: \HandItem.trip) var items: [HandItem] = []
//         var lodging: HandLodging?
//         @Transient var scratch = 0
//         init(name: String) { self.name = name }
//     }
//
// (`@Transient` on the generated storage is left out: the macro's marker is not in this module.)

class HandTrip {
    var name: String {
        @storageRestrictions(initializes: _name) init(initialValue) { _name = initialValue }
        get { _$backingData.access(self, keyPath: \.name); return _name }
        set { _$backingData.withMutation(of: self, keyPath: \.name, at: 1) { _name = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.name)
            _$backingData.willModify(self, keyPath: \.name, at: 1)
            defer { _$backingData.didModify(self, keyPath: \.name, at: 1) }
            yield &_name
        }
    }
    private var _name: String

    var startDate: Date {
        @storageRestrictions(initializes: _startDate) init(initialValue) { _startDate = initialValue }
        get { _$backingData.access(self, keyPath: \.startDate); return _startDate }
        set { _$backingData.withMutation(of: self, keyPath: \.startDate, at: 2) { _startDate = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.startDate)
            _$backingData.willModify(self, keyPath: \.startDate, at: 2)
            defer { _$backingData.didModify(self, keyPath: \.startDate, at: 2) }
            yield &_startDate
        }
    }
    private var _startDate: Date = Date.now

    var items: [HandItem] {
        @storageRestrictions(initializes: _items) init(initialValue) { _items = initialValue }
        get { _$backingData.access(self, keyPath: \.items); return _items }
        set { _$backingData.withMutation(of: self, keyPath: \.items, at: 3) { _items = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.items)
            _$backingData.willModify(self, keyPath: \.items, at: 3)
            defer { _$backingData.didModify(self, keyPath: \.items, at: 3) }
            yield &_items
        }
    }
    private var _items: [HandItem] = []

    var lodging: HandLodging? {
        @storageRestrictions(initializes: _lodging) init(initialValue) { _lodging = initialValue }
        get { _$backingData.access(self, keyPath: \.lodging); return _lodging }
        set { _$backingData.withMutation(of: self, keyPath: \.lodging, at: 4) { _lodging = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.lodging)
            _$backingData.willModify(self, keyPath: \.lodging, at: 4)
            defer { _$backingData.didModify(self, keyPath: \.lodging, at: 4) }
            yield &_lodging
        }
    }
    private var _lodging: HandLodging?

    var scratch = 0

    init(name: String) { self.name = name }

    // member role
    public let _$backingData = StoreProtocol.ModelBacking()
    public var persistentBackingData: StoreProtocol.ModelBacking { _$backingData }
    public private(set) var id = Foundation.UUID()
    public static let schemaMetadata = StoreProtocol.SchemaMetadata<HandTrip>(
        properties: [
            .attribute("id", \HandTrip.id),
            .attribute("name", \HandTrip.name, options: [.preserveValueOnDeletion], originalName: "title"),
            .attribute("startDate", \HandTrip.startDate, defaultValue: Date.now),
            .relationship("items", \HandTrip.items, deleteRule: .cascade, inverse: \HandItem.trip),
            .attribute("lodging", \HandTrip.lodging),
        ],
        unique: [[\HandTrip.name, \HandTrip.startDate]],
        indexed: [[\HandTrip.name], [\HandTrip.startDate]])
    public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
        var values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 5)
        values["id"] = try StoreProtocol.ModelCoding.encode(id)
        values["name"] = try StoreProtocol.ModelCoding.encode(_name)
        values["startDate"] = try StoreProtocol.ModelCoding.encode(_startDate)
        values["items"] = try StoreProtocol.ModelCoding.encode(_items)
        values["lodging"] = try StoreProtocol.ModelCoding.encode(_lodging)
        return values
    }
    public required init(storedValues values: [String: StoreProtocol.SnapshotValue]) throws {
        id = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandTrip")
        _name = try StoreProtocol.ModelCoding.decode(values["name"], attribute: "name", of: "HandTrip")
        _startDate = try StoreProtocol.ModelCoding.decode(values["startDate"], attribute: "startDate", of: "HandTrip")
        _items = try StoreProtocol.ModelCoding.decode(values["items"], attribute: "items", of: "HandTrip")
        _lodging = try StoreProtocol.ModelCoding.decode(values["lodging"], attribute: "lodging", of: "HandTrip")
    }
    public func assignStoredValues(_ values: [String: StoreProtocol.SnapshotValue]) throws {
        let id: Foundation.UUID = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandTrip")
        let name: String = try StoreProtocol.ModelCoding.decode(values["name"], attribute: "name", of: "HandTrip")
        let startDate: Date = try StoreProtocol.ModelCoding.decode(values["startDate"], attribute: "startDate", of: "HandTrip")
        self.id = id
        self.name = name
        self.startDate = startDate
    }
}
extension HandTrip: StoreProtocol.PersistentModel, Observation.Observable {}

// Source:
//
//     @Model class HandItem {
//         var title: String
//         var done = false
//         var trip: HandTrip?
//         init(_ title: String) { self.title = title }
//     }
class HandItem {
    var title: String {
        @storageRestrictions(initializes: _title) init(initialValue) { _title = initialValue }
        get { _$backingData.access(self, keyPath: \.title); return _title }
        set { _$backingData.withMutation(of: self, keyPath: \.title, at: 1) { _title = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.title)
            _$backingData.willModify(self, keyPath: \.title, at: 1)
            defer { _$backingData.didModify(self, keyPath: \.title, at: 1) }
            yield &_title
        }
    }
    private var _title: String

    var done: Bool {
        @storageRestrictions(initializes: _done) init(initialValue) { _done = initialValue }
        get { _$backingData.access(self, keyPath: \.done); return _done }
        set { _$backingData.withMutation(of: self, keyPath: \.done, at: 2) { _done = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.done)
            _$backingData.willModify(self, keyPath: \.done, at: 2)
            defer { _$backingData.didModify(self, keyPath: \.done, at: 2) }
            yield &_done
        }
    }
    private var _done: Bool = false

    var trip: HandTrip? {
        @storageRestrictions(initializes: _trip) init(initialValue) { _trip = initialValue }
        get { _$backingData.access(self, keyPath: \.trip); return _trip }
        set { _$backingData.withMutation(of: self, keyPath: \.trip, at: 3) { _trip = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.trip)
            _$backingData.willModify(self, keyPath: \.trip, at: 3)
            defer { _$backingData.didModify(self, keyPath: \.trip, at: 3) }
            yield &_trip
        }
    }
    private var _trip: HandTrip?

    init(_ title: String) { self.title = title }

    public let _$backingData = StoreProtocol.ModelBacking()
    public var persistentBackingData: StoreProtocol.ModelBacking { _$backingData }
    public private(set) var id = Foundation.UUID()
    public static let schemaMetadata = StoreProtocol.SchemaMetadata<HandItem>(
        properties: [
            .attribute("id", \HandItem.id),
            .attribute("title", \HandItem.title),
            .attribute("done", \HandItem.done, defaultValue: false),
            .attribute("trip", \HandItem.trip),
        ])
    public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
        var values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 4)
        values["id"] = try StoreProtocol.ModelCoding.encode(id)
        values["title"] = try StoreProtocol.ModelCoding.encode(_title)
        values["done"] = try StoreProtocol.ModelCoding.encode(_done)
        values["trip"] = try StoreProtocol.ModelCoding.encode(_trip)
        return values
    }
    public required init(storedValues values: [String: StoreProtocol.SnapshotValue]) throws {
        id = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandItem")
        _title = try StoreProtocol.ModelCoding.decode(values["title"], attribute: "title", of: "HandItem")
        _done = try StoreProtocol.ModelCoding.decode(values["done"], attribute: "done", of: "HandItem")
        _trip = try StoreProtocol.ModelCoding.decode(values["trip"], attribute: "trip", of: "HandItem")
    }
    public func assignStoredValues(_ values: [String: StoreProtocol.SnapshotValue]) throws {
        let id: Foundation.UUID = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandItem")
        let title: String = try StoreProtocol.ModelCoding.decode(values["title"], attribute: "title", of: "HandItem")
        let done: Bool = try StoreProtocol.ModelCoding.decode(values["done"], attribute: "done", of: "HandItem")
        self.id = id
        self.title = title
        self.done = done
    }
}
extension HandItem: StoreProtocol.PersistentModel, Observation.Observable {}

// Source:
//
//     @Model class HandLodging {
//         var hotel: String
//         var nights: Int?
//         init(_ hotel: String) { self.hotel = hotel }
//     }
class HandLodging {
    var hotel: String {
        @storageRestrictions(initializes: _hotel) init(initialValue) { _hotel = initialValue }
        get { _$backingData.access(self, keyPath: \.hotel); return _hotel }
        set { _$backingData.withMutation(of: self, keyPath: \.hotel, at: 1) { _hotel = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.hotel)
            _$backingData.willModify(self, keyPath: \.hotel, at: 1)
            defer { _$backingData.didModify(self, keyPath: \.hotel, at: 1) }
            yield &_hotel
        }
    }
    private var _hotel: String

    var nights: Int? {
        @storageRestrictions(initializes: _nights) init(initialValue) { _nights = initialValue }
        get { _$backingData.access(self, keyPath: \.nights); return _nights }
        set { _$backingData.withMutation(of: self, keyPath: \.nights, at: 2) { _nights = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.nights)
            _$backingData.willModify(self, keyPath: \.nights, at: 2)
            defer { _$backingData.didModify(self, keyPath: \.nights, at: 2) }
            yield &_nights
        }
    }
    private var _nights: Int?

    init(_ hotel: String) { self.hotel = hotel }

    public let _$backingData = StoreProtocol.ModelBacking()
    public var persistentBackingData: StoreProtocol.ModelBacking { _$backingData }
    public private(set) var id = Foundation.UUID()
    public static let schemaMetadata = StoreProtocol.SchemaMetadata<HandLodging>(
        properties: [
            .attribute("id", \HandLodging.id),
            .attribute("hotel", \HandLodging.hotel),
            .attribute("nights", \HandLodging.nights),
        ])
    public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
        var values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 3)
        values["id"] = try StoreProtocol.ModelCoding.encode(id)
        values["hotel"] = try StoreProtocol.ModelCoding.encode(_hotel)
        values["nights"] = try StoreProtocol.ModelCoding.encode(_nights)
        return values
    }
    public required init(storedValues values: [String: StoreProtocol.SnapshotValue]) throws {
        id = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandLodging")
        _hotel = try StoreProtocol.ModelCoding.decode(values["hotel"], attribute: "hotel", of: "HandLodging")
        _nights = try StoreProtocol.ModelCoding.decode(values["nights"], attribute: "nights", of: "HandLodging")
    }
    public func assignStoredValues(_ values: [String: StoreProtocol.SnapshotValue]) throws {
        let id: Foundation.UUID = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandLodging")
        let hotel: String = try StoreProtocol.ModelCoding.decode(values["hotel"], attribute: "hotel", of: "HandLodging")
        let nights: Int? = try StoreProtocol.ModelCoding.decode(values["nights"], attribute: "nights", of: "HandLodging")
        self.id = id
        self.hotel = hotel
        self.nights = nights
    }
}
extension HandLodging: StoreProtocol.PersistentModel, Observation.Observable {}

// Source:
//
//     @Model class HandBag {
//         var label: String
//         @Relationship(minimumModelCount: 1, maximumModelCount: 2) var things: [HandLodging] = []
//         init(_ label: String) { self.label = label }
//     }
class HandBag {
    var label: String {
        @storageRestrictions(initializes: _label) init(initialValue) { _label = initialValue }
        get { _$backingData.access(self, keyPath: \.label); return _label }
        set { _$backingData.withMutation(of: self, keyPath: \.label, at: 1) { _label = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.label)
            _$backingData.willModify(self, keyPath: \.label, at: 1)
            defer { _$backingData.didModify(self, keyPath: \.label, at: 1) }
            yield &_label
        }
    }
    private var _label: String

    var things: [HandLodging] {
        @storageRestrictions(initializes: _things) init(initialValue) { _things = initialValue }
        get { _$backingData.access(self, keyPath: \.things); return _things }
        set { _$backingData.withMutation(of: self, keyPath: \.things, at: 2) { _things = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.things)
            _$backingData.willModify(self, keyPath: \.things, at: 2)
            defer { _$backingData.didModify(self, keyPath: \.things, at: 2) }
            yield &_things
        }
    }
    private var _things: [HandLodging] = []

    init(_ label: String) { self.label = label }

    public let _$backingData = StoreProtocol.ModelBacking()
    public var persistentBackingData: StoreProtocol.ModelBacking { _$backingData }
    public private(set) var id = Foundation.UUID()
    public static let schemaMetadata = StoreProtocol.SchemaMetadata<HandBag>(
        properties: [
            .attribute("id", \HandBag.id),
            .attribute("label", \HandBag.label),
            .relationship("things", \HandBag.things, minimumModelCount: 1, maximumModelCount: 2),
        ])
    public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
        var values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 3)
        values["id"] = try StoreProtocol.ModelCoding.encode(id)
        values["label"] = try StoreProtocol.ModelCoding.encode(_label)
        values["things"] = try StoreProtocol.ModelCoding.encode(_things)
        return values
    }
    public required init(storedValues values: [String: StoreProtocol.SnapshotValue]) throws {
        id = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandBag")
        _label = try StoreProtocol.ModelCoding.decode(values["label"], attribute: "label", of: "HandBag")
        _things = try StoreProtocol.ModelCoding.decode(values["things"], attribute: "things", of: "HandBag")
    }
    public func assignStoredValues(_ values: [String: StoreProtocol.SnapshotValue]) throws {
        let id: Foundation.UUID = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandBag")
        let label: String = try StoreProtocol.ModelCoding.decode(values["label"], attribute: "label", of: "HandBag")
        self.id = id
        self.label = label
    }
}
extension HandBag: StoreProtocol.PersistentModel, Observation.Observable {}

// Source (no inverse declared on either side: inferred, one candidate each way):
//
//     @Model class HandShelf {
//         var books: [HandBook] = []
//         init() {}
//     }
//     @Model class HandBook {
//         var title: String
//         var shelf: HandShelf?
//         init(_ title: String) { self.title = title }
//     }
class HandShelf {
    var books: [HandBook] {
        @storageRestrictions(initializes: _books) init(initialValue) { _books = initialValue }
        get { _$backingData.access(self, keyPath: \.books); return _books }
        set { _$backingData.withMutation(of: self, keyPath: \.books, at: 1) { _books = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.books)
            _$backingData.willModify(self, keyPath: \.books, at: 1)
            defer { _$backingData.didModify(self, keyPath: \.books, at: 1) }
            yield &_books
        }
    }
    private var _books: [HandBook] = []

    init() {}

    public let _$backingData = StoreProtocol.ModelBacking()
    public var persistentBackingData: StoreProtocol.ModelBacking { _$backingData }
    public private(set) var id = Foundation.UUID()
    public static let schemaMetadata = StoreProtocol.SchemaMetadata<HandShelf>(
        properties: [
            .attribute("id", \HandShelf.id),
            .attribute("books", \HandShelf.books),
        ])
    public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
        var values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 2)
        values["id"] = try StoreProtocol.ModelCoding.encode(id)
        values["books"] = try StoreProtocol.ModelCoding.encode(_books)
        return values
    }
    public required init(storedValues values: [String: StoreProtocol.SnapshotValue]) throws {
        id = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandShelf")
        _books = try StoreProtocol.ModelCoding.decode(values["books"], attribute: "books", of: "HandShelf")
    }
    public func assignStoredValues(_ values: [String: StoreProtocol.SnapshotValue]) throws {
        let id: Foundation.UUID = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandShelf")
        self.id = id
    }
}
extension HandShelf: StoreProtocol.PersistentModel, Observation.Observable {}

class HandBook {
    var title: String {
        @storageRestrictions(initializes: _title) init(initialValue) { _title = initialValue }
        get { _$backingData.access(self, keyPath: \.title); return _title }
        set { _$backingData.withMutation(of: self, keyPath: \.title, at: 1) { _title = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.title)
            _$backingData.willModify(self, keyPath: \.title, at: 1)
            defer { _$backingData.didModify(self, keyPath: \.title, at: 1) }
            yield &_title
        }
    }
    private var _title: String

    var shelf: HandShelf? {
        @storageRestrictions(initializes: _shelf) init(initialValue) { _shelf = initialValue }
        get { _$backingData.access(self, keyPath: \.shelf); return _shelf }
        set { _$backingData.withMutation(of: self, keyPath: \.shelf, at: 2) { _shelf = newValue } }
        _modify {
            _$backingData.access(self, keyPath: \.shelf)
            _$backingData.willModify(self, keyPath: \.shelf, at: 2)
            defer { _$backingData.didModify(self, keyPath: \.shelf, at: 2) }
            yield &_shelf
        }
    }
    private var _shelf: HandShelf?

    init(_ title: String) { self.title = title }

    public let _$backingData = StoreProtocol.ModelBacking()
    public var persistentBackingData: StoreProtocol.ModelBacking { _$backingData }
    public private(set) var id = Foundation.UUID()
    public static let schemaMetadata = StoreProtocol.SchemaMetadata<HandBook>(
        properties: [
            .attribute("id", \HandBook.id),
            .attribute("title", \HandBook.title),
            .attribute("shelf", \HandBook.shelf),
        ])
    public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
        var values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 3)
        values["id"] = try StoreProtocol.ModelCoding.encode(id)
        values["title"] = try StoreProtocol.ModelCoding.encode(_title)
        values["shelf"] = try StoreProtocol.ModelCoding.encode(_shelf)
        return values
    }
    public required init(storedValues values: [String: StoreProtocol.SnapshotValue]) throws {
        id = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandBook")
        _title = try StoreProtocol.ModelCoding.decode(values["title"], attribute: "title", of: "HandBook")
        _shelf = try StoreProtocol.ModelCoding.decode(values["shelf"], attribute: "shelf", of: "HandBook")
    }
    public func assignStoredValues(_ values: [String: StoreProtocol.SnapshotValue]) throws {
        let id: Foundation.UUID = try StoreProtocol.ModelCoding.decode(values["id"], attribute: "id", of: "HandBook")
        let title: String = try StoreProtocol.ModelCoding.decode(values["title"], attribute: "title", of: "HandBook")
        self.id = id
        self.title = title
    }
}
extension HandBook: StoreProtocol.PersistentModel, Observation.Observable {}
