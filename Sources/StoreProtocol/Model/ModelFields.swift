@_spi(Reflection) @_spi(ObservableRerootKeyPath) import Swift
import Foundation

/// The stored properties of a model class, each with its name, type and a key path, found once
/// per type by reflection and cached.
///
/// Why reflection: a history update lists `updatedAttributes` as key paths, and a tombstone is
/// read by key path, but a store only knows attribute names. Without macros the framework must
/// turn a name into the same key path the user writes (`\Trip.name`), and back.
struct ModelFields: @unchecked Sendable {
    // @unchecked: key paths are immutable objects; `Any.Type` metatypes are immutable too.
    struct Field {
        let name: String
        let keyPath: AnyKeyPath
        let valueType: Any.Type
        /// Byte offset of the stored property in an instance.
        let offset: Int
    }

    let fields: [Field]
    private let indexByName: [String: Int]
    private let indexByKeyPath: [AnyKeyPath: Int]

    private static let cache = Locked<[ObjectIdentifier: ModelFields]>([:])

    static func of<Model: PersistentModel>(_ type: Model.Type) -> ModelFields {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let made = ModelFields(reflecting: type)
        cache.withLock { $0[key] = made }
        return made
    }

    private init<Model: PersistentModel>(reflecting type: Model.Type) {
        var fields: [Field] = []
        // Raw value 1 is `_EachFieldOptions.classType`, spelled out because the static is a `var`.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, offset, valueType, _ in
            fields.append(Field(
                name: String(cString: name),
                keyPath: Self.writableKeyPath(root: type, offset: offset, value: valueType),
                valueType: valueType, offset: offset))
            return true
        }
        self.fields = fields
        indexByName = Dictionary(fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        indexByKeyPath = Dictionary(fields.enumerated().map { ($1.keyPath, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Builds the key path of a stored class property from its offset, of the class a `var`
    /// property's key path literal has (`ReferenceWritableKeyPath`), so that it is `==` to and
    /// hashes like `\Model.property`.
    ///
    /// The standard library builds offset-based key paths of class `KeyPath` only. The writable
    /// subclass adds no stored state, so the object is given that class for equality and
    /// hashing, and is only ever read through: writing through it is not sound (the buffer lacks
    /// what the writable projection reads), so the framework never does, and the public API hands
    /// these out as `PartialKeyPath`. Tests check equality with the literals and reads.
    private static func writableKeyPath<Root: AnyObject>(root: Root.Type, offset: Int, value: Any.Type) -> AnyKeyPath {
        let keyPath = _createOffsetBasedKeyPath(root: root, value: value, offset: offset)
        func writableClass<Value>(_: Value.Type) -> AnyKeyPath.Type { ReferenceWritableKeyPath<Root, Value>.self }
        let target: AnyKeyPath.Type = _openExistential(value, do: writableClass)
        let metadata = unsafeBitCast(target, to: UnsafeRawPointer.self)
        Unmanaged.passUnretained(keyPath).toOpaque().storeBytes(of: metadata, as: UnsafeRawPointer.self)
        return keyPath
    }

    func field(named name: String) -> Field? { indexByName[name].map { fields[$0] } }

    /// The attribute name of a key path the user wrote, `nil` when it is not one stored property.
    func name(of keyPath: AnyKeyPath) -> String? {
        if let index = indexByKeyPath[keyPath] { return fields[index].name }
        // A `let` property's literal is a read-only `KeyPath`; match it by its printed name.
        let printed = keyPath.debugDescription
        guard let dot = printed.lastIndex(of: ".") else { return nil }
        let name = String(printed[printed.index(after: dot)...])
        return indexByName[name] != nil ? name : nil
    }

    /// Copies every stored property from `source` into `target`, which keeps its identity.
    ///
    /// Each value is assigned at its reflected offset as its own type (so references are retained
    /// and released as in a normal assignment). Both must be instances of the reflected class.
    func copyValues<Model: PersistentModel>(from source: Model, to target: Model) {
        guard type(of: source) == Model.self, type(of: target) == Model.self else { return }
        let from = UnsafeMutableRawPointer(Unmanaged.passUnretained(source).toOpaque())
        let to = UnsafeMutableRawPointer(Unmanaged.passUnretained(target).toOpaque())
        for field in fields {
            func assign<Value>(_: Value.Type) {
                (to + field.offset).assumingMemoryBound(to: Value.self).pointee =
                    (from + field.offset).assumingMemoryBound(to: Value.self).pointee
            }
            _openExistential(field.valueType, do: assign)
        }
    }
}
