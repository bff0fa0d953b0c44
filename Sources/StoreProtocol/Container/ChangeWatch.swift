import Foundation
import Observation

/// How a context hears that an `@Observable` model changed, so that a save need not encode every
/// model it holds to find the few that changed.
///
/// The context *arms* a watch when it knows the model holds its stored values: it reads every
/// attribute and relationship of the model inside `withObservationTracking`. Observation calls
/// back on the first change to any of them, before the value is set; the callback disarms the
/// watch and logs the model's identifier in the context's ``TouchLog``. So, as long as a watch is
/// armed, the model still holds the values it held when the watch was armed.
///
/// Why it is sound: `@Observable` routes every write of a tracked property (a set, an in-place
/// mutation through `_modify`, a write through a key path) through `withMutation`, which calls
/// back. What it cannot see is a write that bypasses the accessors: a property marked
/// `@ObservationIgnored` (a type with one is compared by encoding, see ``ModelObservation``),
/// or an instance of a class inside an attribute, changed in place. Attributes are values (the
/// framework stores what they encode), so the last is a model declaring a reference where it
/// stores a value.
///
/// Cost: arming registers one observer per property with the model's registrar (about as much
/// as encoding the model once); a watch is armed at most once between two changes.
final class ChangeWatch: Sendable {
    private struct State {
        var isArmed = false
        var identifier: PersistentIdentifier
    }
    private let state: Locked<State>

    init(_ identifier: PersistentIdentifier) {
        state = Locked(State(identifier: identifier))
    }

    /// Whether no change happened since the watch was armed.
    var isArmed: Bool { state.withLock { $0.isArmed } }

    /// The identifier logged on a change: the registration's key, which a unique-constraint
    /// collision changes to the stored model's.
    func move(to identifier: PersistentIdentifier) {
        state.withLock { $0.identifier = identifier }
    }

    /// Arms the watch unless it is armed: `read` reads every property to watch.
    func arm(reading read: () -> Void, log: TouchLog) {
        let wasArmed = state.withLock { state in
            defer { state.isArmed = true }
            return state.isArmed
        }
        guard !wasArmed else { return }
        withObservationTracking(read) { [self] in
            let identifier = state.withLock { state in
                state.isArmed = false
                return state.identifier
            }
            log.append(identifier)
        }
    }
}

/// The identifiers of observed models changed since the context last looked, appended by
/// ``ChangeWatch`` callbacks (on whatever thread changed the model) and drained by the context.
final class TouchLog: Sendable {
    private let identifiers = Locked<[PersistentIdentifier]>([])

    func append(_ identifier: PersistentIdentifier) {
        identifiers.withLock { $0.append(identifier) }
    }

    func drain() -> [PersistentIdentifier] {
        identifiers.withLock { identifiers in
            defer { identifiers.removeAll() }
            return identifiers
        }
    }
}

/// How to read every attribute and relationship of an `@Observable` model type through the
/// key paths its metadata lists, for ``ChangeWatch/arm(reading:log:)``.
struct ModelObservation {
    let readProperties: (any PersistentModel) -> Void

    /// `nil` for a type that is not `Observable`, or one with a property that observation does
    /// not see: the context then compares its models by encoding them.
    ///
    /// Observation sees a property only through the accessors `@Observable` writes for it. An
    /// `@ObservationIgnored` property keeps plain storage, so its key path reaches a stored
    /// property: such a type is compared by encoding, as a plain model is.
    ///
    /// `@Observable` does not call back when a property is set to a value `==` to the one it
    /// holds. That is the context's own comparison for the standard value types, but a type's
    /// own `==` may call values equal that are stored differently (`Measurement`'s 1 km and
    /// 1,000 m, a struct comparing only its id), and a class's `==` is identity, blind to a
    /// change inside the instance. So a type is watched only if every attribute is a
    /// ``WatchableValue`` (see there); a type with any other attribute is compared by encoding.
    init?<Model: PersistentModel>(_ attributes: ModelAttributes<Model>) {
        guard Model.self is any Observable.Type else { return nil }
        let keyPaths = attributes.keyPaths
        let fields = StoredProperties.of(Model.self)
        guard !keyPaths.contains(where: { StoredProperties.name(of: $0, among: fields) != nil }),
              attributes.attributes.allSatisfy({ isWatchable(type(of: $0.keyPath).valueType) }) else { return nil }
        readProperties = { model in
            guard let model = model as? Model else { return }
            for keyPath in keyPaths { _ = model[keyPath: keyPath] }
        }
    }
}

/// A type whose `==` holds exactly when the context's comparison of encoded values does, so that
/// `@Observable`'s "no call back for an equal value" loses nothing: the standard library's
/// numbers, `Bool` and `String`, and Foundation's `Date`, `UUID`, `URL` and `Data` (their `==`
/// is what a snapshot compares), optionals and arrays of them (``isWatchable(_:)``), and
/// `RawRepresentable` types of them (enums: `==` compares the case).
protocol WatchableValue {}

extension String: WatchableValue {}
extension Bool: WatchableValue {}
extension Int: WatchableValue {}
extension Int8: WatchableValue {}
extension Int16: WatchableValue {}
extension Int32: WatchableValue {}
extension Int64: WatchableValue {}
extension UInt: WatchableValue {}
extension UInt8: WatchableValue {}
extension UInt16: WatchableValue {}
extension UInt32: WatchableValue {}
extension UInt64: WatchableValue {}
extension Double: WatchableValue {}
extension Float: WatchableValue {}
extension Date: WatchableValue {}
extension UUID: WatchableValue {}
extension URL: WatchableValue {}
extension Data: WatchableValue {}

/// The element type of an optional or an array, for ``isWatchable(_:)``.
private protocol WatchableContainer { static var elementType: Any.Type { get } }
extension Optional: WatchableContainer { fileprivate static var elementType: Any.Type { Wrapped.self } }
extension Array: WatchableContainer { fileprivate static var elementType: Any.Type { Element.self } }

/// Whether an attribute of this type can be watched (``WatchableValue``).
func isWatchable(_ type: Any.Type) -> Bool {
    if type is any WatchableValue.Type { return true }
    if let container = type as? any WatchableContainer.Type { return isWatchable(container.elementType) }
    if let raw = type as? any RawRepresentable.Type {
        func rawValueType<Raw: RawRepresentable>(_: Raw.Type) -> Any.Type { Raw.RawValue.self }
        return isWatchable(rawValueType(raw))
    }
    return false
}
