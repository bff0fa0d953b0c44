/// A model attribute named in a query: its stored name (the key of its value in a snapshot),
/// the Swift type of the model property, and whether the property is optional.
///
/// A row that has no value under ``name`` (the key is absent, or ``SnapshotValue/null``) holds
/// `nil`; for a non-optional attribute that means the row does not decode as the model.
public struct QueryAttribute: Sendable, Hashable, CustomStringConvertible {
    /// The stored name, as ``PersistentModel/attributeName(of:)`` gives it.
    public var name: String
    /// The Swift type of the property (of its wrapped value when it is optional).
    public var type: QueryValueType
    /// Whether the property is an `Optional`.
    public var isOptional: Bool

    /// Makes an attribute from its stored name, property type and optionality, as given.
    public init(name: String, type: QueryValueType, isOptional: Bool) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }

    /// The attribute's value in a row, in canonical form (``QueryValueType/canonicalValue(of:)``):
    /// ``SnapshotValue/null`` for `nil`; `nil` when the stored value does not read as the
    /// property's type (including a missing value of a non-optional attribute).
    /// - Complexity: O(1): one dictionary lookup.
    public func value(in values: [String: SnapshotValue]) -> SnapshotValue? {
        value(stored: values[name])
    }

    /// The attribute's value when a row holds `stored` under ``name`` (`nil`: the key is
    /// absent), as ``value(in:)`` gives it: for a reader that has the stored value at hand.
    /// - Complexity: O(1), no lookup.
    public func value(stored: SnapshotValue?) -> SnapshotValue? {
        guard let stored, stored != .null else { return isOptional ? .null : nil }
        return type.canonicalValue(of: stored)
    }

    public var description: String { name }
}
