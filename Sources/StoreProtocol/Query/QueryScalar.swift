import Foundation

/// A Swift type whose values a query can hold: its ``QueryValueType``, its constants in
/// canonical form, and the `SortDescriptor` a sort by an attribute of the type is built as
/// (so that a translated sort can be checked to be that one).
///
/// Only types whose `==` and `<` the query's ``QueryComparison`` reproduces exactly conform;
/// enums, structs and other types with possibly custom `==` do not, so a predicate that
/// compares them stays untranslated.
protocol QueryScalar {
    /// The type; `nil` for a nested optional (`String??`), which a query does not model.
    static var queryValueType: QueryValueType? { get }
    /// Whether the type is an `Optional`.
    static var isQueryOptional: Bool { get }
    /// The value in canonical form (``QueryValueType/canonicalValue(of:)``).
    var querySnapshotValue: SnapshotValue { get }
    /// `SortDescriptor(keyPath, order:)` (or with `comparator:`) for a key path to this type,
    /// as `SortDescriptor`'s public initializers build it; `nil` when there is none.
    static func sortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>?
    /// The same for a key path to `Self?`.
    static func optionalSortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>?
}

extension QueryScalar {
    static var isQueryOptional: Bool { false }

    static func sortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>? { nil }

    static func optionalSortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>? { nil }
}

extension QueryScalar where Self: Comparable {
    static func sortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>? {
        guard comparator == nil, let typed = keyPath as? KeyPath<Root, Self> else { return nil }
        return SortDescriptor(sendable(typed), order: order)
    }

    static func optionalSortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>? {
        guard comparator == nil, let typed = keyPath as? KeyPath<Root, Self?> else { return nil }
        return SortDescriptor(sendable(typed), order: order)
    }
}

/// A key path that came from an `any PartialKeyPath & Sendable`, given its static type back.
/// Key paths are immutable; the cast only restores what the dynamic cast dropped.
private func sendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> any KeyPath<Root, Value> & Sendable {
    unsafeBitCast(keyPath, to: (any KeyPath<Root, Value> & Sendable).self)
}

extension Optional: QueryScalar where Wrapped: QueryScalar {
    static var queryValueType: QueryValueType? { Wrapped.isQueryOptional ? nil : Wrapped.queryValueType }
    static var isQueryOptional: Bool { true }
    var querySnapshotValue: SnapshotValue { map(\.querySnapshotValue) ?? .null }

    static func sortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>? {
        Wrapped.optionalSortDescriptor(keyPath, order: order, comparator: comparator)
    }
}

extension Bool: QueryScalar {
    static var queryValueType: QueryValueType? { .bool }
    var querySnapshotValue: SnapshotValue { .bool(self) }
}

extension String: QueryScalar {
    static var queryValueType: QueryValueType? { .string }
    var querySnapshotValue: SnapshotValue { .string(self) }

    static func sortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>? {
        guard let typed = keyPath as? KeyPath<Root, String> else { return nil }
        guard let comparator else { return SortDescriptor(sendable(typed), order: order) }
        return SortDescriptor(sendable(typed), comparator: comparator, order: order)
    }

    static func optionalSortDescriptor<Root>(
        _ keyPath: any PartialKeyPath<Root> & Sendable, order: SortOrder, comparator: String.StandardComparator?
    ) -> SortDescriptor<Root>? {
        guard let typed = keyPath as? KeyPath<Root, String?> else { return nil }
        guard let comparator else { return SortDescriptor(sendable(typed), order: order) }
        return SortDescriptor(sendable(typed), comparator: comparator, order: order)
    }
}

extension Double: QueryScalar {
    static var queryValueType: QueryValueType? { .double }
    var querySnapshotValue: SnapshotValue { .double(self) }
}

extension Float: QueryScalar {
    static var queryValueType: QueryValueType? { .float }
    var querySnapshotValue: SnapshotValue { .double(bitExactDouble) }
}

extension Date: QueryScalar {
    static var queryValueType: QueryValueType? { .date }
    var querySnapshotValue: SnapshotValue { .date(self) }
}

extension UUID: QueryScalar {
    static var queryValueType: QueryValueType? { .uuid }
    var querySnapshotValue: SnapshotValue { .uuid(self) }
}

/// Integers: canonical ``SnapshotValue/int(_:)``, ``SnapshotValue/unsigned(_:)`` above `Int64.max`.
protocol QueryInteger: QueryScalar, FixedWidthInteger {}
extension QueryInteger {
    var querySnapshotValue: SnapshotValue { QueryValueType.canonicalInteger(self) }
}

extension Int: QueryInteger { static var queryValueType: QueryValueType? { .int } }
extension Int8: QueryInteger { static var queryValueType: QueryValueType? { .int8 } }
extension Int16: QueryInteger { static var queryValueType: QueryValueType? { .int16 } }
extension Int32: QueryInteger { static var queryValueType: QueryValueType? { .int32 } }
extension Int64: QueryInteger { static var queryValueType: QueryValueType? { .int64 } }
extension UInt: QueryInteger { static var queryValueType: QueryValueType? { .uint } }
extension UInt8: QueryInteger { static var queryValueType: QueryValueType? { .uint8 } }
extension UInt16: QueryInteger { static var queryValueType: QueryValueType? { .uint16 } }
extension UInt32: QueryInteger { static var queryValueType: QueryValueType? { .uint32 } }
extension UInt64: QueryInteger { static var queryValueType: QueryValueType? { .uint64 } }
