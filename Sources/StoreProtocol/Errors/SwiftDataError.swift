/// SwiftData's error names, so that a port's `catch` clauses work unchanged:
///
/// ```swift
/// do {
///     let changes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
/// } catch SwiftDataError.historyTokenExpired {
///     // re-read the data, then start again from the current token
/// }
/// ```
///
/// The framework throws its own typed errors (``DataStoreError``, ``HistoryError``,
/// ``ModelContextError``), which say more. Each member here works as a pattern that also matches
/// the project's error for the same situation (the table in each member's documentation); a
/// member for a situation the project does not have matches only a `SwiftDataError` with its code.
/// `ModelConfiguration` throws `SwiftDataError` itself for the two file-name members.
///
/// Not here because SwiftData has no member for them: a save to a store opened with
/// `allowsSave: false` throws ``DataStoreError/readOnly``; an entity the schema does not hold,
/// ``DataStoreError/unknownEntity``.
public struct SwiftDataError: CodedError {
    /// What kind of failure, for matching: SwiftData's member names.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The code of ``SwiftDataError/includePendingChangesWithBatchSize``.
        public static let includePendingChangesWithBatchSize = Code(rawValue: "includePendingChangesWithBatchSize")
        /// The code of ``SwiftDataError/sortingPendingChangesWithIdentifiers``.
        public static let sortingPendingChangesWithIdentifiers = Code(rawValue: "sortingPendingChangesWithIdentifiers")
        /// The code of ``SwiftDataError/unsupportedKeyPath``.
        public static let unsupportedKeyPath = Code(rawValue: "unsupportedKeyPath")
        /// The code of ``SwiftDataError/unsupportedPredicate``.
        public static let unsupportedPredicate = Code(rawValue: "unsupportedPredicate")
        /// The code of ``SwiftDataError/unsupportedSortDescriptor``.
        public static let unsupportedSortDescriptor = Code(rawValue: "unsupportedSortDescriptor")
        /// The code of ``SwiftDataError/configurationFileNameContainsInvalidCharacters``.
        public static let configurationFileNameContainsInvalidCharacters = Code(rawValue: "configurationFileNameContainsInvalidCharacters")
        /// The code of ``SwiftDataError/configurationFileNameTooLong``.
        public static let configurationFileNameTooLong = Code(rawValue: "configurationFileNameTooLong")
        /// The code of ``SwiftDataError/configurationSchemaNotFoundInContainerSchema``.
        public static let configurationSchemaNotFoundInContainerSchema = Code(rawValue: "configurationSchemaNotFoundInContainerSchema")
        /// The code of ``SwiftDataError/duplicateConfiguration``.
        public static let duplicateConfiguration = Code(rawValue: "duplicateConfiguration")
        /// The code of ``SwiftDataError/loadIssueModelContainer``.
        public static let loadIssueModelContainer = Code(rawValue: "loadIssueModelContainer")
        /// The code of ``SwiftDataError/modelValidationFailure``.
        public static let modelValidationFailure = Code(rawValue: "modelValidationFailure")
        /// The code of ``SwiftDataError/missingModelContext``.
        public static let missingModelContext = Code(rawValue: "missingModelContext")
        /// The code of ``SwiftDataError/backwardMigration``.
        public static let backwardMigration = Code(rawValue: "backwardMigration")
        /// The code of ``SwiftDataError/unknownSchema``.
        public static let unknownSchema = Code(rawValue: "unknownSchema")
        /// The code of ``SwiftDataError/historyTokenExpired``.
        public static let historyTokenExpired = Code(rawValue: "historyTokenExpired")
        /// The code of ``SwiftDataError/invalidTransactionFetchRequest``.
        public static let invalidTransactionFetchRequest = Code(rawValue: "invalidTransactionFetchRequest")
    }

    public var code: Code
    public var message: String

    /// Makes an error with a code to match on and a message for a person, as given.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Matches a `SwiftDataError` with the same code, and the project's own errors for the same
    /// situation (see each member): `catch SwiftDataError.historyTokenExpired` catches the
    /// ``HistoryError/historyTokenExpired`` a history fetch throws.
    public static func ~= (pattern: SwiftDataError, error: any Error) -> Bool {
        if let error = error as? SwiftDataError { return error.code == pattern.code }
        return projectErrors(matching: pattern.code).contains { $0(error) }
    }

    /// The patterns of the project's errors that a member stands for.
    private static func projectErrors(matching code: Code) -> [(any Error) -> Bool] {
        switch code {
        case .unsupportedPredicate: [{ DataStoreError.invalidPredicate ~= $0 }]
        case .loadIssueModelContainer: [{ DataStoreError.invalidConfiguration ~= $0 }, { DataStoreError.corruptStore ~= $0 }]
        case .modelValidationFailure:
            [{ ModelContextError.relationshipCountViolation ~= $0 }, { ModelContextError.deleteDenied ~= $0 },
             { DataStoreError.constraintViolation ~= $0 }]
        case .backwardMigration, .unknownSchema: [{ DataStoreError.incompatibleSchema ~= $0 }]
        case .historyTokenExpired: [{ HistoryError.historyTokenExpired ~= $0 }]
        case .invalidTransactionFetchRequest: [{ HistoryError.foreignToken ~= $0 }, { HistoryError.historyUnavailable ~= $0 }]
        default: []
        }
    }
}

/// SwiftData's members, as patterns (the messages are placeholders: a thrown error has its own).
extension SwiftDataError {
    // MARK: Fetch

    /// A fetch that asks for pending changes and a batch size at once. Matches only a
    /// `SwiftDataError`: the framework's batched `enumerate` includes pending changes.
    public static let includePendingChangesWithBatchSize = SwiftDataError(.includePendingChangesWithBatchSize, "includePendingChangesWithBatchSize")
    /// Sorting pending changes by identifier. Matches only a `SwiftDataError`: the framework
    /// sorts pending changes as the store does.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError(.sortingPendingChangesWithIdentifiers, "sortingPendingChangesWithIdentifiers")
    /// A key path the store cannot read. Matches only a `SwiftDataError`: a key path the store
    /// cannot translate is evaluated in memory.
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath, "unsupportedKeyPath")
    /// A predicate that cannot be evaluated. Also matches ``DataStoreError/invalidPredicate``
    /// (a predicate that throws on a model).
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate, "unsupportedPredicate")
    /// A sort descriptor the store cannot apply. Matches only a `SwiftDataError`: a sort the
    /// store cannot apply is done in memory.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor, "unsupportedSortDescriptor")

    // MARK: Configuration

    /// A `ModelConfiguration` name that cannot be a file name (it holds `/` or a NUL, or is empty,
    /// `.` or `..`), thrown by `ModelContainer` for the default location.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError(.configurationFileNameContainsInvalidCharacters, "configurationFileNameContainsInvalidCharacters")
    /// A `ModelConfiguration` name too long for the default location's files (each of the
    /// store's files, named after it, must fit in 255 bytes: a name may be 226 bytes), thrown
    /// by `ModelContainer` before anything is created.
    public static let configurationFileNameTooLong = SwiftDataError(.configurationFileNameTooLong, "configurationFileNameTooLong")
    /// A configuration whose schema the container's does not hold. Matches only a
    /// `SwiftDataError`: the container adds each configuration's model types to its schema.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "configurationSchemaNotFoundInContainerSchema")
    /// Two configurations of one store. Matches only a `SwiftDataError`: the container does not
    /// compare its configurations.
    public static let duplicateConfiguration = SwiftDataError(.duplicateConfiguration, "duplicateConfiguration")

    // MARK: Container

    /// A container that cannot open a store. Also matches ``DataStoreError/invalidConfiguration``
    /// (a location that cannot be used: a missing or read-only home for the default store, a
    /// missing directory, an unknown backend) and ``DataStoreError/corruptStore`` (a file that is
    /// not a store, or damaged).
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer, "loadIssueModelContainer")

    // MARK: Context

    /// A save refused because a model breaks a rule of the schema. Also matches
    /// ``ModelContextError/relationshipCountViolation``, ``ModelContextError/deleteDenied`` and
    /// ``DataStoreError/constraintViolation``.
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure, "modelValidationFailure")
    /// A model used without a context. Matches only a `SwiftDataError`: the framework has no such
    /// failure (a model's relationships work before it is inserted).
    public static let missingModelContext = SwiftDataError(.missingModelContext, "missingModelContext")

    // MARK: Migration

    /// A store of a newer schema than the container's. Also matches
    /// ``DataStoreError/incompatibleSchema``, which the framework throws for this and for a
    /// store that cannot be migrated without a custom stage (so it also matches
    /// ``unknownSchema``).
    public static let backwardMigration = SwiftDataError(.backwardMigration, "backwardMigration")
    /// A store whose schema the migration plan does not know. Also matches
    /// ``DataStoreError/incompatibleSchema`` (see ``backwardMigration``).
    public static let unknownSchema = SwiftDataError(.unknownSchema, "unknownSchema")

    // MARK: History

    /// A history token whose history was deleted. Also matches
    /// ``HistoryError/historyTokenExpired``.
    public static let historyTokenExpired = SwiftDataError(.historyTokenExpired, "historyTokenExpired")
    /// A history fetch that cannot be answered. Also matches ``HistoryError/foreignToken`` (a
    /// token of another store) and ``HistoryError/historyUnavailable`` (no store keeps history).
    public static let invalidTransactionFetchRequest = SwiftDataError(.invalidTransactionFetchRequest, "invalidTransactionFetchRequest")
}
