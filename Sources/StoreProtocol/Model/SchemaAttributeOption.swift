extension Schema.Attribute {
    /// What `@Attribute(_:)` says of an attribute: SwiftData's `Schema.Attribute.Option`.
    public struct Option: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case unique, preserveValueOnDeletion, externalStorage, ephemeral, spotlight, allowsCloudEncryption
            case transformable(String)
        }

        let kind: Kind

        /// No two models may hold the same value: a unique constraint of this attribute alone
        /// (as `#Unique<Model>([\.attribute])`). Inserting a model whose value is stored already
        /// updates the stored model instead.
        public static let unique = Option(kind: .unique)
        /// A deletion keeps the attribute's last value in its history tombstone.
        public static let preserveValueOnDeletion = Option(kind: .preserveValueOnDeletion)
        /// Accepted for source compatibility. Here the value is stored in the store's rows like any
        /// other attribute (no file beside the store yet), so keep such values to what a row holds
        /// comfortably.
        public static let externalStorage = Option(kind: .externalStorage)
        /// Tracked and observed, never stored: the property keeps its initial value in every
        /// instance a context reads from the store.
        public static let ephemeral = Option(kind: .ephemeral)
        /// Accepted for source compatibility; no effect on Linux (there is no Spotlight index).
        public static let spotlight = Option(kind: .spotlight)
        /// Accepted for source compatibility; no effect on Linux (there is no CloudKit).
        public static let allowsCloudEncryption = Option(kind: .allowsCloudEncryption)

        /// Accepted for source compatibility. Foundation on Linux has no `ValueTransformer`, so the
        /// transformer is recorded by name only and the value is stored by its own type's coding
        /// (the attribute's type must be one ``ModelCoding`` stores).
        public static func transformable(by transformerName: String) -> Option {
            Option(kind: .transformable(transformerName))
        }

        /// Accepted for source compatibility: as ``transformable(by:)-(String)``, naming the
        /// transformer by its type.
        public static func transformable(by transformerType: Any.Type) -> Option {
            Option(kind: .transformable(String(describing: transformerType)))
        }
    }
}

extension Schema.Relationship {
    /// What `@Relationship(_:)` says of a relationship: SwiftData's `Schema.Relationship.Option`.
    public struct Option: Sendable, Hashable {
        enum Kind: Sendable, Hashable { case unique }

        let kind: Kind

        /// Accepted for source compatibility; a relationship's values are primary keys, unique by
        /// themselves, so this adds no constraint here.
        public static let unique = Option(kind: .unique)
    }
}
