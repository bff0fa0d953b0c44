import Foundation

/// One save's worth of changes, as history reports it.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The bookmark type of the store's history (``DefaultHistoryToken`` for the framework's stores).
    associatedtype Token: HistoryToken

    /// Strictly increasing within a store.
    var transactionIdentifier: Int64 { get }
    /// Pass it back in ``HistoryDescriptor/after`` to resume after this transaction.
    var token: Token { get }
    /// The ``ModelContext/author`` of the context that saved.
    var author: String? { get }
    /// When the store recorded the transaction.
    var timestamp: Date { get }
    /// The store that recorded it.
    var storeIdentifier: String { get }
    /// The saving process's name.
    var bundleIdentifier: String { get }
    /// The saving process's id.
    var processIdentifier: String { get }
    /// The changes in the order they were made: inserts, then updates, then deletes of the save.
    var changes: [HistoryChange] { get }
}

/// The transaction type of the framework's backends (and any backend that wants it).
public struct DefaultHistoryTransaction: HistoryTransaction, CustomStringConvertible {
    public var transactionIdentifier: Int64
    public var token: DefaultHistoryToken
    public var author: String?
    public var timestamp: Date
    public var storeIdentifier: String
    public var bundleIdentifier: String
    public var processIdentifier: String
    public var changes: [HistoryChange]

    public var id: Int64 { transactionIdentifier }

    /// Makes a transaction from its parts, as given; a backend usually makes one with
    /// ``init(record:storeIdentifier:schema:)`` instead.
    public init(
        transactionIdentifier: Int64, token: DefaultHistoryToken, author: String?, timestamp: Date,
        storeIdentifier: String, bundleIdentifier: String, processIdentifier: String, changes: [HistoryChange]
    ) {
        self.transactionIdentifier = transactionIdentifier
        self.token = token
        self.author = author
        self.timestamp = timestamp
        self.storeIdentifier = storeIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.processIdentifier = processIdentifier
        self.changes = changes
    }

    /// Makes the typed transaction of a stored record. Changes of entities the schema does not
    /// hold (a model type removed since) are left out.
    public init(record: HistoryRecord, storeIdentifier: String, schema: Schema) {
        self.init(
            transactionIdentifier: record.transactionNumber,
            token: DefaultHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: record.transactionNumber),
            author: record.author, timestamp: record.timestamp, storeIdentifier: storeIdentifier,
            bundleIdentifier: record.bundleIdentifier, processIdentifier: record.processIdentifier,
            changes: record.changes.enumerated().compactMap { index, change in
                schema.entity(named: change.entityName)?.modelType.historyChange(
                    change, changeIdentifier: Int64(index), transactionIdentifier: record.transactionNumber)
            })
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }

    public var description: String {
        "transaction \(transactionIdentifier) by \(author ?? "nil"): \(changes.count) change(s)"
    }
}
