import Foundation

extension Schema {
    /// One attribute of an entity as a store and a migration see it (SwiftData's
    /// `Schema.Attribute`).
    public struct Attribute: Sendable, Hashable {
        /// The stored name (the property's name).
        public let name: String
        /// The Swift type of the value, optional unwrapped (`Int`, `Date`, `Array<String>`).
        public let valueType: String
        /// Whether the property is optional: stored models without a value read as `nil`.
        public let isOptional: Bool
        /// The name the attribute was stored under before (`@Attribute(originalName:)`).
        public let originalName: String?
        /// The value a migration gives stored models that lack it (the property's initial
        /// value).
        public let defaultValue: SnapshotValue?
        /// The simplest value of the type that reads back (0, "", false, the 1970 date, an empty
        /// array…), `nil` when none of those does: what a migration with a custom stage stores for
        /// a new or retyped attribute without a default, so that `didMigrate` can fetch the
        /// models and set it.
        let placeholder: SnapshotValue?
    }
}

/// Lets a metatype say whether it is `Optional` and what it wraps.
protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}

extension Schema.Attribute {
    /// The attribute at `keyPath`, with what the model's declaration says of it; a default value
    /// that does not read back as the attribute's type is added to `problems`.
    init<Model: PersistentModel>(name: String, keyPath: any PartialKeyPath<Model> & Sendable, originalName: String?,
                                 defaultValue: SnapshotValue?, problems: inout [String]) {
        let type = Swift.type(of: keyPath).valueType
        let optional = type as? any OptionalType.Type
        self.name = name
        valueType = TypeNames.name(of: optional?.wrappedType ?? type)
        isOptional = optional != nil
        func readsBack<T>(_ value: SnapshotValue, as _: T.Type) -> Bool {
            // A raw-value enum need not be Codable: ModelCoding stores its raw value.
            func rawValueReadsBack<R: RawRepresentable>(_: R.Type) -> Bool {
                guard let raw = R.RawValue.self as? any SnapshotValueConvertible.Type,
                      let decoded = (try? raw.init(snapshotValue: value)) as? R.RawValue else { return false }
                return R(rawValue: decoded) != nil
            }
            if let representable = (optional?.wrappedType ?? T.self) as? any RawRepresentable.Type,
               rawValueReadsBack(representable) { return true }
            guard let decodable = T.self as? any Decodable.Type else { return false }
            return (try? SnapshotDecoder().decode(decodable, from: value)) != nil
        }
        let candidates: [SnapshotValue] = [.int(0), .double(0), .string(""), .bool(false), .date(Date(timeIntervalSince1970: 0)),
                                           .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), .data(Data()),
                                           .decimal(0), .unsigned(0), .array([]), .object([:])]
        placeholder = candidates.first { readsBack($0, as: type) }
        self.originalName = originalName
        if let defaultValue, !readsBack(defaultValue, as: type) {
            problems.append("\(Model.self).\(name): its default value does not read back as \(type)")
            self.defaultValue = nil
        } else {
            self.defaultValue = defaultValue
        }
    }
}
