import Testing

/// The expansion `@Model` gives a class, compared whole with MACRO-CONTRACT.md's (in process:
/// the marker attributes `@Attribute`, `@Relationship`, `@Transient` expand to nothing here,
/// where the compiler keeps them on the declaration).
@Suite struct ModelExpansionTests {
    @Test func theContractsTripExpandsAsTheContractSays() {
        let expansion = MacroExpansion(#"""
            @Model class Trip {
                #Unique<Trip>([\.name, \.startDate])
                #Index<Trip>([\.name], [\.startDate])
                @Attribute(.preserveValueOnDeletion, originalName: "title") var name: String
                var startDate = Date.now
                @Relationship(deleteRule: .cascade, inverse: \Item.trip) var items: [Item] = []
                var lodging: Lodging?
                @Transient var scratch = 0
                init(name: String) { self.name = name }
            }
            """#)
        #expect(expansion.diagnostics == [])
        #expect(expansion.text == #"""
        class Trip {
            var name: String {
                @storageRestrictions(initializes: _name)
                init(initialValue) {
                    _name = initialValue
                }
                get {
                    _$backingData.access(self, keyPath: \.name)
                    return _name
                }
                set {
                    _$backingData.withMutation(of: self, keyPath: \.name, at: 1) {
                        _name = newValue
                    }
                }
                _modify {
                    _$backingData.access(self, keyPath: \.name)
                    _$backingData.willModify(self, keyPath: \.name, at: 1)
                    defer {
                        _$backingData.didModify(self, keyPath: \.name, at: 1)
                    }
                    yield &_name
                }
            }

            private var _name: String
            var startDate {
                @storageRestrictions(initializes: _startDate)
                init(initialValue) {
                    _startDate = initialValue
                }
                get {
                    _$backingData.access(self, keyPath: \.startDate)
                    return _startDate
                }
                set {
                    _$backingData.withMutation(of: self, keyPath: \.startDate, at: 2) {
                        _startDate = newValue
                    }
                }
                _modify {
                    _$backingData.access(self, keyPath: \.startDate)
                    _$backingData.willModify(self, keyPath: \.startDate, at: 2)
                    defer {
                        _$backingData.didModify(self, keyPath: \.startDate, at: 2)
                    }
                    yield &_startDate
                }
            }

            private var _startDate = Date.now
            var items: [Item] {
                @storageRestrictions(initializes: _items)
                init(initialValue) {
                    _items = initialValue
                }
                get {
                    _$backingData.access(self, keyPath: \.items)
                    return _items
                }
                set {
                    _$backingData.withMutation(of: self, keyPath: \.items, at: 3) {
                        _items = newValue
                    }
                }
                _modify {
                    _$backingData.access(self, keyPath: \.items)
                    _$backingData.willModify(self, keyPath: \.items, at: 3)
                    defer {
                        _$backingData.didModify(self, keyPath: \.items, at: 3)
                    }
                    yield &_items
                }
            }

            private var _items: [Item] = []
            var lodging: Lodging? {
                @storageRestrictions(initializes: _lodging)
                init(initialValue) {
                    _lodging = initialValue
                }
                get {
                    _$backingData.access(self, keyPath: \.lodging)
                    return _lodging
                }
                set {
                    _$backingData.withMutation(of: self, keyPath: \.lodging, at: 4) {
                        _lodging = newValue
                    }
                }
                _modify {
                    _$backingData.access(self, keyPath: \.lodging)
                    _$backingData.willModify(self, keyPath: \.lodging, at: 4)
                    defer {
                        _$backingData.didModify(self, keyPath: \.lodging, at: 4)
                    }
                    yield &_lodging
                }
            }

            private var _lodging: Lodging?
            var scratch = 0
            init(name: String) { self.name = name }

            public let _$backingData = StoreProtocol.ModelBacking()

            public var persistentBackingData: StoreProtocol.ModelBacking {
                _$backingData
            }

            public private(set) var id = Foundation.UUID()

            public static let schemaMetadata = StoreProtocol.SchemaMetadata<Trip>(
                properties: [
                    .attribute("id", \Trip.id),
                    .attribute("name", \Trip.name, options: [.preserveValueOnDeletion], originalName: "title"),
                    .attribute("startDate", \Trip.startDate, defaultValue: Date.now),
                    .relationship("items", \Trip.items, deleteRule: .cascade, inverse: \Item.trip),
                    .attribute("lodging", \Trip.lodging),
                ],
                unique: [[\Trip.name, \Trip.startDate]],
                indexed: [[\Trip.name], [\Trip.startDate]])

            public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
                var _$values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 5)
                _$values["id"] = try StoreProtocol.ModelCoding.encode(id)
                _$values["name"] = try StoreProtocol.ModelCoding.encode(_name)
                _$values["startDate"] = try StoreProtocol.ModelCoding.encode(_startDate)
                _$values["items"] = try StoreProtocol.ModelCoding.encode(_items)
                _$values["lodging"] = try StoreProtocol.ModelCoding.encode(_lodging)
                return _$values
            }

            public required init(storedValues _$values: [String: StoreProtocol.SnapshotValue]) throws {
                var _$stored_id: StoreProtocol.SnapshotValue? = nil
                var _$stored_name: StoreProtocol.SnapshotValue? = nil
                var _$stored_startDate: StoreProtocol.SnapshotValue? = nil
                var _$stored_items: StoreProtocol.SnapshotValue? = nil
                var _$stored_lodging: StoreProtocol.SnapshotValue? = nil
                for (_$key, _$value) in _$values {
                    switch _$key {
                    case "id":
                        _$stored_id = _$value
                    case "name":
                        _$stored_name = _$value
                    case "startDate":
                        _$stored_startDate = _$value
                    case "items":
                        _$stored_items = _$value
                    case "lodging":
                        _$stored_lodging = _$value
                    default:
                        break
                    }
                }
                id = try StoreProtocol.ModelCoding.decode(_$stored_id, attribute: "id", of: "Trip")
                _name = try StoreProtocol.ModelCoding.decode(_$stored_name, attribute: "name", of: "Trip")
                _startDate = try StoreProtocol.ModelCoding.decode(_$stored_startDate, attribute: "startDate", of: "Trip")
                _items = try StoreProtocol.ModelCoding.decode(_$stored_items, attribute: "items", of: "Trip")
                _lodging = try StoreProtocol.ModelCoding.decode(_$stored_lodging, attribute: "lodging", of: "Trip")
            }

            public func assignStoredValues(_ _$values: [String: StoreProtocol.SnapshotValue]) throws {
                func _$isRelationship<V>(_: V) -> Bool {
                    false
                }
                func _$isRelationship<D: StoreProtocol.PersistentModel>(_: D?) -> Bool {
                    true
                }
                func _$isRelationship<D: StoreProtocol.PersistentModel>(_: [D]) -> Bool {
                    true
                }
                let id: Foundation.UUID = try StoreProtocol.ModelCoding.decode(_$values["id"], attribute: "id", of: "Trip")
                let name: String = try StoreProtocol.ModelCoding.decode(_$values["name"], attribute: "name", of: "Trip")
                var startDate = _startDate
                startDate = try StoreProtocol.ModelCoding.decode(_$values["startDate"], attribute: "startDate", of: "Trip")
                let lodging: Lodging? = try StoreProtocol.ModelCoding.decode(_$values["lodging"], attribute: "lodging", of: "Trip")
                self.id = id
                self.name = name
                if !_$isRelationship(startDate) {
                    self.startDate = startDate
                }
                if !_$isRelationship(lodging) {
                    self.lodging = lodging
                }
            }
        }

        nonisolated extension Trip: nonisolated StoreProtocol.PersistentModel, nonisolated Observation.Observable {
        }
        """#)
    }

    /// A declared `id` is the primary key (no `id` generated), a `let` is decoded once and never
    /// assigned, an `.ephemeral` attribute is observed (index -1) and not stored, and static,
    /// computed and lazy properties are left alone.
    @Test func declaredIDLetEphemeralStaticComputedAndLazy() {
        let expansion = MacroExpansion(#"""
            @Model final class Card {
                let id: UUID
                var front: String
                @Attribute(.ephemeral) var isFlipped = false
                static var count = 0
                var computed: Int { 1 }
                lazy var cache = 0
                init(id: UUID, front: String) { self.id = id; self.front = front }
            }
            """#)
        #expect(expansion.diagnostics == [])
        #expect(expansion.text == #"""
        final class Card {
            let id: UUID
            var front: String {
                @storageRestrictions(initializes: _front)
                init(initialValue) {
                    _front = initialValue
                }
                get {
                    _$backingData.access(self, keyPath: \.front)
                    return _front
                }
                set {
                    _$backingData.withMutation(of: self, keyPath: \.front, at: 1) {
                        _front = newValue
                    }
                }
                _modify {
                    _$backingData.access(self, keyPath: \.front)
                    _$backingData.willModify(self, keyPath: \.front, at: 1)
                    defer {
                        _$backingData.didModify(self, keyPath: \.front, at: 1)
                    }
                    yield &_front
                }
            }

            private var _front: String
            var isFlipped {
                @storageRestrictions(initializes: _isFlipped)
                init(initialValue) {
                    _isFlipped = initialValue
                }
                get {
                    _$backingData.access(self, keyPath: \.isFlipped)
                    return _isFlipped
                }
                set {
                    _$backingData.withMutation(of: self, keyPath: \.isFlipped, at: -1) {
                        _isFlipped = newValue
                    }
                }
                _modify {
                    _$backingData.access(self, keyPath: \.isFlipped)
                    _$backingData.willModify(self, keyPath: \.isFlipped, at: -1)
                    defer {
                        _$backingData.didModify(self, keyPath: \.isFlipped, at: -1)
                    }
                    yield &_isFlipped
                }
            }

            private var _isFlipped = false
            static var count = 0
            var computed: Int { 1 }
            lazy var cache = 0
            init(id: UUID, front: String) { self.id = id; self.front = front }

            public let _$backingData = StoreProtocol.ModelBacking()

            public var persistentBackingData: StoreProtocol.ModelBacking {
                _$backingData
            }

            public static let schemaMetadata = StoreProtocol.SchemaMetadata<Card>(
                properties: [
                    .attribute("id", \Card.id),
                    .attribute("front", \Card.front),
                ])

            public func storedValues() throws -> [String: StoreProtocol.SnapshotValue] {
                var _$values = [String: StoreProtocol.SnapshotValue](minimumCapacity: 2)
                _$values["id"] = try StoreProtocol.ModelCoding.encode(id)
                _$values["front"] = try StoreProtocol.ModelCoding.encode(_front)
                return _$values
            }

            public required init(storedValues _$values: [String: StoreProtocol.SnapshotValue]) throws {
                var _$stored_id: StoreProtocol.SnapshotValue? = nil
                var _$stored_front: StoreProtocol.SnapshotValue? = nil
                for (_$key, _$value) in _$values {
                    switch _$key {
                    case "id":
                        _$stored_id = _$value
                    case "front":
                        _$stored_front = _$value
                    default:
                        break
                    }
                }
                id = try StoreProtocol.ModelCoding.decode(_$stored_id, attribute: "id", of: "Card")
                _front = try StoreProtocol.ModelCoding.decode(_$stored_front, attribute: "front", of: "Card")
            }

            public func assignStoredValues(_ _$values: [String: StoreProtocol.SnapshotValue]) throws {
                let front: String = try StoreProtocol.ModelCoding.decode(_$values["front"], attribute: "front", of: "Card")
                self.front = front
            }
        }

        nonisolated extension Card: nonisolated StoreProtocol.PersistentModel, nonisolated Observation.Observable {
        }
        """#)
    }
}

extension ModelExpansionTests {
    /// With a written type the initial value is passed as `.some(…)`, so that `.none` is resolved
    /// against the property's type (an enum case `none`), not taken as `Optional.none`; `nil` and an
    /// initial value that names its own type are passed as written.
    @Test func aDefaultValueIsTypedAsTheProperty() {
        let expansion = MacroExpansion("""
            @Model final class Profile {
                var visibility: Visibility = .none
                var shownTo: Visibility? = nil
                var visits = 3
                init() {}
            }
            """)
        #expect(expansion.diagnostics == [])
        #expect(expansion.text.contains(#".attribute("visibility", \Profile.visibility, defaultValue: .some(.none)),"#))
        #expect(expansion.text.contains(#".attribute("shownTo", \Profile.shownTo, defaultValue: nil),"#))
        #expect(expansion.text.contains(#".attribute("visits", \Profile.visits, defaultValue: 3),"#))
    }

    /// A name written escaped (`` `default` ``) is stored as `default` in storage `_default`, and
    /// escaped wherever code refers to it (a `#Unique` key path included).
    @Test func anEscapedName() {
        let expansion = MacroExpansion("""
            @Model final class Preference {
                #Unique<Preference>([\\.`default`])
                var `default`: Bool = false
                let `in`: Int
                init() { self.in = 1 }
            }
            """)
        #expect(expansion.diagnostics == [])
        for line in [
            "private var _default: Bool = false",
            "_$backingData.access(self, keyPath: \\.`default`)",
            #".attribute("default", \Preference.`default`, defaultValue: .some(false)),"#,
            #"_$values["default"] = try StoreProtocol.ModelCoding.encode(_default)"#,
            #"_$values["in"] = try StoreProtocol.ModelCoding.encode(`in`)"#,
            #"`in` = try StoreProtocol.ModelCoding.decode(_$stored_in, attribute: "in", of: "Preference")"#,
            #"let `default`: Bool = try StoreProtocol.ModelCoding.decode(_$values["default"], attribute: "default", of: "Preference")"#,
            "self.`default` = `default`",
            "unique: [[\\Preference.`default`]]",
        ] {
            #expect(expansion.text.contains(line), "\(line)")
        }
    }

    /// A model of more than 16 stored properties decodes each value by name: a `switch` over
    /// every name would compare each one with half the others.
    @Test func aWideModelDecodesByName() {
        let properties = (1...17).map { "    var p\($0) = 0\n" }.joined()
        let expansion = MacroExpansion("@Model final class Wide {\n" + properties + "    init() {}\n}")
        #expect(expansion.diagnostics == [])
        #expect(expansion.text.contains(#"_p17 = try StoreProtocol.ModelCoding.decode(_$values["p17"], attribute: "p17", of: "Wide")"#))
        #expect(!expansion.text.contains("_$stored_"))
        let narrow = MacroExpansion("@Model final class Narrow {\n" + (1...15).map { "    var p\($0) = 0\n" }.joined() + "    init() {}\n}")
        #expect(narrow.text.contains("case \"p15\":"), "16 stored properties with id: switched")
    }
}
