/// An error from a store, or from the framework about a store: a ``code`` to match on and a
/// message a person can act on.
///
/// ```swift
/// catch let error as DataStoreError where error.code == .unsupportedFeature { … }
/// ```
/// Two errors are equal when their codes are.
///
/// The ``message`` (also the `description`) is safe to log: it names models by their identifier,
/// and never holds the values of their attributes, nor a password. What it leaves out for that
/// reason (the values that collided) is in ``debugDetails``, which only `debugDescription` (`String(reflecting:)`)
/// adds, as postgres-nio's and GRDB's errors do. The driver's or system's error that caused
/// this one is kept as ``underlyingError``.
public struct DataStoreError: CodedError, CustomDebugStringConvertible {
    /// What kind of failure, for matching.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The store does not do this (for example, an update sent to an insert-only store).
        public static let unsupportedFeature = Code(rawValue: "unsupportedFeature")
        /// The store cannot evaluate this predicate; the context filters in memory.
        public static let preferInMemoryFilter = Code(rawValue: "preferInMemoryFilter")
        /// The store cannot sort this way; the context sorts in memory.
        public static let preferInMemorySort = Code(rawValue: "preferInMemorySort")
        /// The predicate cannot be evaluated at all.
        public static let invalidPredicate = Code(rawValue: "invalidPredicate")
        /// A save reached a store opened with `allowsSave: false`.
        public static let readOnly = Code(rawValue: "readOnly")
        /// A model type or entity name the schema does not hold.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        /// Model metadata that does not fit the model, or no configuration at all.
        public static let invalidSchema = Code(rawValue: "invalidSchema")
        /// A stored snapshot that does not decode as its model type.
        public static let undecodableSnapshot = Code(rawValue: "undecodableSnapshot")
        /// A change would give two models the same values of a unique constraint.
        public static let constraintViolation = Code(rawValue: "constraintViolation")
        /// A store location or configuration that cannot be used.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// Stored data that is damaged or of another format or version.
        public static let corruptStore = Code(rawValue: "corruptStore")
        /// The file system refused an operation.
        public static let ioFailure = Code(rawValue: "ioFailure")
        /// A value the store cannot hold exactly (for example, nested deeper than its format
        /// reads back); the save was refused before anything was written.
        public static let unsupportedValue = Code(rawValue: "unsupportedValue")
        /// The store holds data of a schema the container's cannot be migrated from without code
        /// (a changed value type, a new attribute without a default), or of a newer schema than
        /// the container's; the message names the entity, the attribute and what to do. Nothing
        /// was changed.
        public static let incompatibleSchema = Code(rawValue: "incompatibleSchema")
    }

    public var code: Code
    public var message: String
    /// What the message leaves out because it is user data: the values of the models' attributes
    /// (those of a unique constraint that collided, a value the database refused). `nil` when
    /// there is nothing more to say. Shown by `debugDescription`; keep it out of logs.
    public var debugDetails: String?
    /// The error that caused this one (a database driver's, the file system's), kept for
    /// debugging and for matching on what the message summarizes; `nil` when the store found
    /// the failure itself.
    public var underlyingError: (any Error)?

    /// Makes an error with a code to match on and a message for a person, as given; the row
    /// values behind it, if any, as `debugDetails`, and its cause as `underlyingError`.
    public init(_ code: Code, _ message: String, debugDetails: String? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.debugDetails = debugDetails
        self.underlyingError = underlyingError
    }

    /// The message, then ``debugDetails`` and the ``underlyingError`` as `String(reflecting:)`
    /// describes it: for debugging, not for logs (it may hold the rows' values).
    public var debugDescription: String {
        var text = message
        if let debugDetails { text += " Details: " + debugDetails }
        if let underlyingError { text += " Underlying error: " + String(reflecting: underlyingError) }
        return text
    }

    /// The context filters in memory.
    public static let preferInMemoryFilter = DataStoreError(.preferInMemoryFilter, "The store prefers the context to filter.")
    /// The context sorts in memory.
    public static let preferInMemorySort = DataStoreError(.preferInMemorySort, "The store prefers the context to sort.")

    /// The store does not do `what`.
    public static func unsupportedFeature(_ what: String) -> DataStoreError {
        DataStoreError(.unsupportedFeature, what)
    }

    package static func unknownEntity(_ name: String, in schema: Schema) -> DataStoreError {
        DataStoreError(.unknownEntity,
            "'\(name)' is not in the schema (it holds: \(schema.entities.isEmpty ? "nothing" : schema.description)). "
            + "Add the type to ModelContainer(for:) or to the store configuration's schema.")
    }
}

/// Each code as an error value, to match with `catch DataStoreError.code` (the messages are
/// placeholders: a thrown error has its own).
extension DataStoreError {
    /// Matches a thrown error of code ``Code/unsupportedFeature``.
    public static let unsupportedFeature = DataStoreError(.unsupportedFeature, "unsupportedFeature")
    /// Matches a thrown error of code ``Code/invalidPredicate``.
    public static let invalidPredicate = DataStoreError(.invalidPredicate, "invalidPredicate")
    /// Matches a thrown error of code ``Code/readOnly``.
    public static let readOnly = DataStoreError(.readOnly, "readOnly")
    /// Matches a thrown error of code ``Code/unknownEntity``.
    public static let unknownEntity = DataStoreError(.unknownEntity, "unknownEntity")
    /// Matches a thrown error of code ``Code/invalidSchema``.
    public static let invalidSchema = DataStoreError(.invalidSchema, "invalidSchema")
    /// Matches a thrown error of code ``Code/undecodableSnapshot``.
    public static let undecodableSnapshot = DataStoreError(.undecodableSnapshot, "undecodableSnapshot")
    /// Matches a thrown error of code ``Code/constraintViolation``.
    public static let constraintViolation = DataStoreError(.constraintViolation, "constraintViolation")
    /// Matches a thrown error of code ``Code/invalidConfiguration``.
    public static let invalidConfiguration = DataStoreError(.invalidConfiguration, "invalidConfiguration")
    /// Matches a thrown error of code ``Code/corruptStore``.
    public static let corruptStore = DataStoreError(.corruptStore, "corruptStore")
    /// Matches a thrown error of code ``Code/ioFailure``.
    public static let ioFailure = DataStoreError(.ioFailure, "ioFailure")
    /// Matches a thrown error of code ``Code/unsupportedValue``.
    public static let unsupportedValue = DataStoreError(.unsupportedValue, "unsupportedValue")
    /// Matches a thrown error of code ``Code/incompatibleSchema``.
    public static let incompatibleSchema = DataStoreError(.incompatibleSchema, "incompatibleSchema")
}
