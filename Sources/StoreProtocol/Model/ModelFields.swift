@_spi(Reflection) @_spi(ObservableRerootKeyPath) import Swift
import Foundation
import Synchronization

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
    }

    let fields: [Field]
    private let indexByName: [String: Int]
    private let indexByKeyPath: [AnyKeyPath: Int]

    private static let cache = Mutex<[ObjectIdentifier: ModelFields]>([:])

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
                valueType: valueType))
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
    /// The standard library builds offset-based key paths of class `KeyPath` only; the writable
    /// subclass adds no stored state, so giving the object that class is sound. Tests check that
    /// the result equals the literal and writes through.
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
    func copyValues(from source: AnyObject, to target: AnyObject) {
        for field in fields {
            (field.keyPath as? any FieldCopying)?.copyValue(from: source, to: target)
        }
    }
}

/// Lets a type-erased key path copy its value between two instances of its root.
private protocol FieldCopying {
    func copyValue(from source: AnyObject, to target: AnyObject)
}

extension ReferenceWritableKeyPath: FieldCopying {
    fileprivate func copyValue(from source: AnyObject, to target: AnyObject) {
        guard let source = source as? Root, let target = target as? Root else { return }
        target[keyPath: self] = source[keyPath: self]
    }
}
