/// An error of the context itself, not of a store.
public struct ModelContextError: CodedError {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `enumerate` found unsaved changes made during the enumeration; pass
        /// `allowEscapingMutations: true` or save inside the block.
        public static let mutationDuringEnumeration = Code(rawValue: "mutationDuringEnumeration")
        /// A model's values could not be encoded into a snapshot.
        public static let unencodableModel = Code(rawValue: "unencodableModel")
        /// A deleted model is still related to models through a relationship whose delete rule
        /// is ``DeleteRule/deny``; the save changed nothing.
        public static let deleteDenied = Code(rawValue: "deleteDenied")
        /// A relationship holds a model that another context tracks (of this container or of
        /// another one), or another instance of a model this context holds: saving it would
        /// copy it into this context's store or leave two instances disagreeing. Relate the
        /// instance this context holds (``ModelContext/model(for:)``); the save changed nothing.
        public static let modelOfAnotherContext = Code(rawValue: "modelOfAnotherContext")
        /// A relationship holds a model that was deleted from its store by a save: saving it
        /// would store the deleted model again. The save changed nothing.
        public static let deletedModel = Code(rawValue: "deletedModel")
        /// A relationship holds fewer models than its `minimumModelCount` or more than its
        /// `maximumModelCount`; the save changed nothing in the store.
        public static let relationshipCountViolation = Code(rawValue: "relationshipCountViolation")
        /// A stored model's `id` was changed: the `id` is the primary key every store keys the
        /// model's row by, so a save cannot move the row to a new one. Set the `id` back, then
        /// insert a new model with the new `id` and delete the old one; the save changed nothing.
        public static let primaryKeyChanged = Code(rawValue: "primaryKeyChanged")
    }

    public var code: Code
    public var message: String

    /// Makes an error with a code to match on and a message for a person, as given.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}

/// Each code as an error value, to match with `catch ModelContextError.code` (the messages are
/// placeholders: a thrown error has its own).
extension ModelContextError {
    /// Matches a thrown error of code ``Code/mutationDuringEnumeration``.
    public static let mutationDuringEnumeration = ModelContextError(.mutationDuringEnumeration, "mutationDuringEnumeration")
    /// Matches a thrown error of code ``Code/unencodableModel``.
    public static let unencodableModel = ModelContextError(.unencodableModel, "unencodableModel")
    /// Matches a thrown error of code ``Code/deleteDenied``.
    public static let deleteDenied = ModelContextError(.deleteDenied, "deleteDenied")
    /// Matches a thrown error of code ``Code/modelOfAnotherContext``.
    public static let modelOfAnotherContext = ModelContextError(.modelOfAnotherContext, "modelOfAnotherContext")
    /// Matches a thrown error of code ``Code/deletedModel``.
    public static let deletedModel = ModelContextError(.deletedModel, "deletedModel")
    /// Matches a thrown error of code ``Code/relationshipCountViolation``.
    public static let relationshipCountViolation = ModelContextError(.relationshipCountViolation, "relationshipCountViolation")
    /// Matches a thrown error of code ``Code/primaryKeyChanged``.
    public static let primaryKeyChanged = ModelContextError(.primaryKeyChanged, "primaryKeyChanged")
}
