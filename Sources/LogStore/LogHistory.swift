import Foundation
import StoreProtocol

/// A bookmark in one log store's history: the number of the last transaction seen.
public struct LogToken: HistoryToken, CustomStringConvertible {
    /// The ``LogStore/identifier`` of the log the token belongs to; any other log refuses the
    /// token as foreign.
    public var storeIdentifier: String
    /// The number of the last transaction seen in that log.
    public var transactionNumber: Int64

    /// Makes a token from its parts, as given.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    /// Tokens of one store order by transaction; tokens of different stores are unordered.
    public static func < (lhs: LogToken, rhs: LogToken) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionNumber < rhs.transactionNumber
    }

    public var description: String { "\(storeIdentifier.prefix(8))…:\(transactionNumber)" }
}

/// One save into a log store. Its changes are all inserts (``LogInsert``): a log has no
/// update or delete change types.
public struct LogTransaction: HistoryTransaction, CustomStringConvertible {
    public var transactionIdentifier: Int64
    public var token: LogToken
    public var author: String?
    public var timestamp: Date
    public var storeIdentifier: String
    public var bundleIdentifier: String
    public var processIdentifier: String
    public var changes: [HistoryChange]

    public var id: Int64 { transactionIdentifier }

    /// Makes a transaction from its parts, as given; the store makes them as it reads its segments.
    public init(transactionIdentifier: Int64, token: LogToken, author: String?, timestamp: Date, storeIdentifier: String,
                bundleIdentifier: String, processIdentifier: String, changes: [HistoryChange]) {
        self.transactionIdentifier = transactionIdentifier
        self.token = token
        self.author = author
        self.timestamp = timestamp
        self.storeIdentifier = storeIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.processIdentifier = processIdentifier
        self.changes = changes
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }

    public var description: String { "log transaction \(transactionIdentifier) by \(author ?? "nil"): \(changes.count) insert(s)" }
}

/// A record appended to the log.
public struct LogInsert<Model: PersistentModel>: HistoryInsert {
    public var changedPersistentIdentifier: PersistentIdentifier
    public var changeIdentifier: Int64
    public var transactionIdentifier: Int64
    /// The record's time (its ``LogTimestamp`` attribute), `nil` when the model has none.
    public var recordTimestamp: Date?

    /// Makes an insert change from its identifiers and the record's time, as given.
    public init(changedPersistentIdentifier: PersistentIdentifier, changeIdentifier: Int64, transactionIdentifier: Int64, recordTimestamp: Date?) {
        self.changedPersistentIdentifier = changedPersistentIdentifier
        self.changeIdentifier = changeIdentifier
        self.transactionIdentifier = transactionIdentifier
        self.recordTimestamp = recordTimestamp
    }
}

extension PersistentModel {
    /// A ``LogInsert`` with `Self` as its model (called on an existential metatype).
    static func logInsert(_ identifier: PersistentIdentifier, change: Int64, transaction: Int64, time: Date?) -> HistoryChange {
        .insert(LogInsert<Self>(changedPersistentIdentifier: identifier, changeIdentifier: change,
                                transactionIdentifier: transaction, recordTimestamp: time))
    }
}
