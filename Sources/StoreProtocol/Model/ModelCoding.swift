import Foundation

/// Encodes a model's attribute values to ``SnapshotValue``s and decodes them back, the overload
/// chosen at compile time from the property's type: what the `@Model` expansion's
/// `storedValues()`, `init(storedValues:)` and `assignStoredValues(_:)` call, one call per
/// property. Public for the expansion and for code generators.
///
/// The overloads, most specific first:
/// - ``SnapshotValueConvertible`` types (integers of every width, `Double`, `Float`, `Bool`,
///   `String`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, and optionals, arrays and `String`-keyed
///   dictionaries of them): converted directly, no `Codable`.
/// - `RawRepresentable` types whose raw value is one of those (an `enum Status: String`): stored as
///   the raw value, as `Codable` stores such an enum.
/// - A model, an optional model or an array of models, optional or not (a relationship): encoded
///   as its primary key(s); decoded as `nil` / `[]`, because only the context resolves keys to
///   instances.
/// - Any other `Codable` type (a struct or enum as a composite attribute): through
///   ``SnapshotEncoder`` / ``SnapshotDecoder`` (disfavored: chosen only when nothing above fits).
/// - Anything else: unavailable, so the expansion does not compile and the message says what to do.
///
/// An optional attribute that is `nil` encodes to `nil` (the attribute is left out of the stored
/// values) and decodes from an absent value or ``SnapshotValue/null``. Every result is exactly
/// what ``SnapshotEncoder`` stores for the same value, so stores and files written before models
/// were declared with `@Model` (through `Codable`) read the same.
public enum ModelCoding {
    // MARK: Encoding

    /// The stored value of an attribute of a ``SnapshotValueConvertible`` type.
    @inlinable
    public static func encode<V: SnapshotValueConvertible>(_ value: V) throws -> SnapshotValue {
        value.snapshotValue
    }

    /// The stored value of an optional attribute; `nil` leaves the attribute out.
    @inlinable
    public static func encode<V: SnapshotValueConvertible>(_ value: V?) throws -> SnapshotValue? {
        value?.snapshotValue
    }

    /// The stored value of a raw-representable attribute: its raw value, never `nil`. (Optional
    /// so that assigning it into stored values is not ambiguous with the optional overload below:
    /// `Optional` is not `RawRepresentable`, so neither overload is more specific.)
    @inlinable
    public static func encode<V: RawRepresentable>(_ value: V) throws -> SnapshotValue? where V.RawValue: SnapshotValueConvertible {
        value.rawValue.snapshotValue
    }

    /// The stored value of an optional raw-representable attribute; `nil` leaves it out.
    ///
    /// Generic over the optional itself (not `V?`): a non-optional raw-representable value,
    /// promoted to an optional where the result is stored (`values["priority"] = …`), would
    /// otherwise fit this overload as well as the one above, and the call would be ambiguous.
    @inlinable
    public static func encode<O: OptionalRawRepresentable>(_ value: O) throws -> SnapshotValue? {
        value.wrappedRawRepresentable?.rawValue.snapshotValue
    }

    /// The stored value of an array of raw-representable values: their raw values.
    @inlinable
    public static func encode<V: RawRepresentable>(_ value: [V]) throws -> SnapshotValue where V.RawValue: SnapshotValueConvertible {
        .array(value.map(\.rawValue.snapshotValue))
    }

    /// The stored value of a to-one relationship: the related model's primary key; `nil` leaves
    /// it out.
    @inlinable
    public static func encode<D: PersistentModel>(_ value: D?) throws -> SnapshotValue? {
        value?.persistentModelID.primaryKey
    }

    /// The stored value of a to-many relationship: the related models' primary keys, in order.
    @inlinable
    public static func encode<D: PersistentModel>(_ value: [D]) throws -> SnapshotValue {
        .array(value.map(\.persistentModelID.primaryKey))
    }

    /// The stored value of an optional to-many relationship (`[Stop]?`): the related models'
    /// primary keys, in order; `nil` is stored as empty (a to-many is always stored as an array).
    @inlinable
    public static func encode<D: PersistentModel>(_ value: [D]?) throws -> SnapshotValue {
        .array((value ?? []).map(\.persistentModelID.primaryKey))
    }

    /// The stored value of a `Codable` composite attribute (a struct or an enum), through
    /// ``SnapshotEncoder``.
    /// - Throws: what the value's `encode(to:)` throws.
    @_disfavoredOverload
    public static func encode<V: Encodable>(_ value: V) throws -> SnapshotValue {
        try SnapshotEncoder().encode(value)
    }

    /// The stored value of an optional `Codable` composite attribute; `nil` leaves it out.
    @_disfavoredOverload
    public static func encode<V: Encodable>(_ value: V?) throws -> SnapshotValue? {
        try value.map { try SnapshotEncoder().encode($0) }
    }

    /// A to-one relationship that is not optional: a compile-time error in the expansion.
    @available(*, unavailable, message: """
        a to-one relationship must be optional: declare it as `Destination?` (a delete rule may \
        nullify it, and its destination may be deleted by another context)
        """)
    public static func encode<D: PersistentModel>(_ value: D) throws -> SnapshotValue {
        throw DataStoreError(.unsupportedValue, "a to-one relationship to \(D.self) must be optional")
    }

    /// An attribute of a type the store cannot hold: a compile-time error in the expansion.
    @available(*, unavailable, message: """
        this type cannot be stored as an attribute: use a number, Bool, String, Date, Data, UUID, URL or \
        Decimal, an enum with such a raw value, a Codable struct or enum, or an optional, array or \
        dictionary of them; mark the property @Transient if it should not be stored
        """)
    public static func encode<V>(_ value: V) throws -> SnapshotValue {
        throw DataStoreError(.unsupportedValue, "\(V.self) cannot be stored as an attribute")
    }

    // MARK: Decoding

    /// An attribute of a ``SnapshotValueConvertible`` type, optional or not, from its stored
    /// value; an optional is `nil` when the value is absent or ``SnapshotValue/null``.
    /// - Throws: ``DataStoreError/Code/undecodableSnapshot`` naming the attribute and entity when
    ///   the value is not of the type, or absent for a non-optional attribute.
    @inlinable
    public static func decode<V: SnapshotValueConvertible>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> V {
        guard let value else {
            guard let absent = V.valueWhenAbsent else { throw missing(V.self, attribute: attribute, of: entity) }
            return absent
        }
        do { return try V(snapshotValue: value) } catch { throw mismatch(error, V.self, attribute: attribute, of: entity) }
    }

    /// A raw-representable attribute from its stored raw value.
    /// - Throws: ``DataStoreError/Code/undecodableSnapshot`` when the value is absent, not a raw
    ///   value, or the raw value of no instance.
    @inlinable
    public static func decode<V: RawRepresentable>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> V
    where V.RawValue: SnapshotValueConvertible {
        guard let value else { throw missing(V.self, attribute: attribute, of: entity) }
        return try rawRepresentable(value, attribute: attribute, of: entity)
    }

    /// An optional raw-representable attribute: `nil` when absent or ``SnapshotValue/null``.
    @inlinable
    public static func decode<V: RawRepresentable>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> V?
    where V.RawValue: SnapshotValueConvertible {
        guard let value, value != .null else { return nil }
        return try rawRepresentable(value, attribute: attribute, of: entity) as V
    }

    /// An array of raw-representable values from their stored raw values.
    @inlinable
    public static func decode<V: RawRepresentable>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> [V]
    where V.RawValue: SnapshotValueConvertible {
        guard let value else { throw missing([V].self, attribute: attribute, of: entity) }
        guard case .array(let elements) = value else {
            throw mismatch(SnapshotValueMismatch([V].self, found: value), [V].self, attribute: attribute, of: entity)
        }
        return try elements.map { try rawRepresentable($0, attribute: attribute, of: entity) }
    }

    @inlinable
    static func rawRepresentable<V: RawRepresentable>(_ value: SnapshotValue, attribute: String, of entity: String) throws -> V
    where V.RawValue: SnapshotValueConvertible {
        let raw: V.RawValue
        do { raw = try V.RawValue(snapshotValue: value) } catch { throw mismatch(error, V.self, attribute: attribute, of: entity) }
        guard let decoded = V(rawValue: raw) else {
            throw DataStoreError(.undecodableSnapshot, "\(entity).\(attribute): the stored value \(value) is the raw value of no \(V.self)")
        }
        return decoded
    }

    /// A to-one relationship: always `nil`; the context sets it from the stored key.
    @inlinable
    public static func decode<D: PersistentModel>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> D? {
        nil
    }

    /// A to-many relationship: always empty; the context sets it from the stored keys.
    @inlinable
    public static func decode<D: PersistentModel>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> [D] {
        []
    }

    /// An optional to-many relationship: always empty; the context sets it from the stored keys.
    @inlinable
    public static func decode<D: PersistentModel>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> [D]? {
        []
    }

    /// A `Codable` composite attribute (a struct or enum, optional or not), through
    /// ``SnapshotDecoder``; an optional is `nil` when the value is absent or ``SnapshotValue/null``.
    /// - Throws: ``DataStoreError/Code/undecodableSnapshot`` naming the attribute and entity.
    @_disfavoredOverload
    public static func decode<V: Decodable>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> V {
        guard let value = value ?? (V.self is any OptionalType.Type ? .null : nil) else {
            throw missing(V.self, attribute: attribute, of: entity)
        }
        do { return try SnapshotDecoder().decode(V.self, from: value) } catch {
            throw mismatch(error, V.self, attribute: attribute, of: entity)
        }
    }

    /// A to-one relationship that is not optional: a compile-time error in the expansion.
    @available(*, unavailable, message: """
        a to-one relationship must be optional: declare it as `Destination?` (a delete rule may \
        nullify it, and its destination may be deleted by another context)
        """)
    public static func decode<D: PersistentModel>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> D {
        throw DataStoreError(.unsupportedValue, "a to-one relationship \(attribute) of \(entity) must be optional")
    }

    /// An attribute of a type the store cannot hold: a compile-time error in the expansion.
    @available(*, unavailable, message: """
        this type cannot be stored as an attribute: use a number, Bool, String, Date, Data, UUID, URL or \
        Decimal, an enum with such a raw value, a Codable struct or enum, or an optional, array or \
        dictionary of them; mark the property @Transient if it should not be stored
        """)
    public static func decode<V>(_ value: SnapshotValue?, attribute: String, of entity: String) throws -> V {
        throw DataStoreError(.unsupportedValue, "\(V.self) cannot be stored as an attribute")
    }

    /// The stored value of `value`, chosen at run time (for a property's default value, which the
    /// metadata holds as `Any`): `nil` when ``ModelCoding`` cannot store its type.
    /// - Complexity: a few dynamic casts; for metadata, never on the save or fetch path.
    static func encodeDynamically(_ value: Any) -> SnapshotValue? {
        if let convertible = value as? any SnapshotValueConvertible { return convertible.snapshotValue }
        if let representable = value as? any RawRepresentable {
            func raw<R: RawRepresentable>(_ value: R) -> Any { value.rawValue }
            return encodeDynamically(raw(representable))
        }
        if let model = value as? any PersistentModel { return model.persistentModelID.primaryKey }
        if let encodable = value as? any Encodable { return try? SnapshotEncoder().encode(encodable) }
        return nil
    }

    // MARK: Errors

    @usableFromInline
    static func missing<V>(_: V.Type, attribute: String, of entity: String) -> DataStoreError {
        DataStoreError(.undecodableSnapshot, "\(entity).\(attribute): no stored value, and the attribute (\(V.self)) is not optional; "
            + "give it a default value in a migration (Schema.Attribute originalName / defaultValue) or make it optional")
    }

    @usableFromInline
    static func mismatch<V>(_ error: any Error, _: V.Type, attribute: String, of entity: String) -> DataStoreError {
        let found = (error as? SnapshotValueMismatch).map { "\($0.found)" } ?? "a value that does not decode (\(error))"
        return DataStoreError(.undecodableSnapshot, "\(entity).\(attribute): expected \(V.self), found \(found)")
    }
}

/// An optional raw-representable value (`Priority?`): what selects the optional overload of
/// `ModelCoding.encode(_:)` for an optional, without making a non-optional value's call
/// ambiguous. Only `Optional` conforms; public for the `@Model` expansion's calls.
public protocol OptionalRawRepresentable {
    /// The raw-representable type the optional wraps.
    associatedtype Wrapped: RawRepresentable where Wrapped.RawValue: SnapshotValueConvertible
    /// The wrapped value, `nil` when there is none.
    var wrappedRawRepresentable: Wrapped? { get }
}

extension Optional: OptionalRawRepresentable where Wrapped: RawRepresentable, Wrapped.RawValue: SnapshotValueConvertible {
    /// The optional itself.
    @inlinable public var wrappedRawRepresentable: Wrapped? { self }
}
