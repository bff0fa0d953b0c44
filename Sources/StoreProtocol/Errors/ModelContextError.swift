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
}
