/// One change of a transaction. Match the payload against the concrete type to get the model:
///
/// ```swift
/// switch change {
/// case .update(let update as DefaultHistoryUpdate<Trip>): … update.updatedAttributes …
/// case .delete(let delete as DefaultHistoryDelete<Trip>): … delete.tombstone[\.name] …
/// default: break
/// }
/// ```
public enum HistoryChange: Sendable, CustomStringConvertible {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// A stored model's attributes changed.
    case update(any HistoryUpdate)
    /// A model was deleted; the payload carries its tombstone.
    case delete(any HistoryDelete)

    /// The model the change is about.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): return change.changedPersistentIdentifier
        case .update(let change): return change.changedPersistentIdentifier
        case .delete(let change): return change.changedPersistentIdentifier
        }
    }

    public var description: String {
        switch self {
        case .insert(let change): return "insert \(change.changedPersistentIdentifier)"
        case .update(let change): return "update \(change.changedPersistentIdentifier)"
        case .delete(let change): return "delete \(change.changedPersistentIdentifier)"
        }
    }
}

/// A model was inserted.
public protocol HistoryInsert<Model>: Sendable {
    /// The model type the change is about.
    associatedtype Model: PersistentModel
    /// The model that was inserted.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position in its transaction.
    var changeIdentifier: Int64 { get }
    /// The ``HistoryTransaction/transactionIdentifier`` of the transaction that holds the change.
    var transactionIdentifier: Int64 { get }
}

/// A stored model's attributes changed.
public protocol HistoryUpdate<Model>: Sendable {
    /// The model type the change is about.
    associatedtype Model: PersistentModel
    /// The model whose attributes changed.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position in its transaction.
    var changeIdentifier: Int64 { get }
    /// The ``HistoryTransaction/transactionIdentifier`` of the transaction that holds the change.
    var transactionIdentifier: Int64 { get }
    /// Exactly the attributes whose values changed; each `==` to the key path literal
    /// (`\Trip.destination`).
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// A model was deleted.
public protocol HistoryDelete<Model>: Sendable {
    /// The model type the change is about.
    associatedtype Model: PersistentModel
    /// The model that was deleted.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position in its transaction.
    var changeIdentifier: Int64 { get }
    /// The ``HistoryTransaction/transactionIdentifier`` of the transaction that holds the change.
    var transactionIdentifier: Int64 { get }
    /// The values of the attributes marked preserved-on-deletion, and nothing else.
    var tombstone: HistoryTombstone<Model> { get }
}

/// The insert change of ``DefaultHistoryTransaction``: which `Model` was inserted.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    public var changedPersistentIdentifier: PersistentIdentifier
    public var changeIdentifier: Int64
    public var transactionIdentifier: Int64

    /// Makes an insert change from its identifiers, as given.
    public init(changedPersistentIdentifier: PersistentIdentifier, changeIdentifier: Int64, transactionIdentifier: Int64) {
        self.changedPersistentIdentifier = changedPersistentIdentifier
        self.changeIdentifier = changeIdentifier
        self.transactionIdentifier = transactionIdentifier
    }
}

/// The update change of ``DefaultHistoryTransaction``: which `Model` changed, and which of its
/// attributes (``updatedAttributes``, each `==` to the key path literal).
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate {
    public var changedPersistentIdentifier: PersistentIdentifier
    public var changeIdentifier: Int64
    public var transactionIdentifier: Int64
    public var updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// Makes an update change from its identifiers and the key paths of the changed attributes, as
    /// given.
    public init(
        changedPersistentIdentifier: PersistentIdentifier, changeIdentifier: Int64, transactionIdentifier: Int64,
        updatedAttributes: [any PartialKeyPath<Model> & Sendable]
    ) {
        self.changedPersistentIdentifier = changedPersistentIdentifier
        self.changeIdentifier = changeIdentifier
        self.transactionIdentifier = transactionIdentifier
        self.updatedAttributes = updatedAttributes
    }

    /// Makes an update from attribute names; names that are not attributes of `Model` are left out.
    public init(
        changedPersistentIdentifier: PersistentIdentifier, changeIdentifier: Int64, transactionIdentifier: Int64,
        updatedAttributeNames: [String]
    ) {
        let attributes = ModelAttributes.of(Model.self)
        self.init(
            changedPersistentIdentifier: changedPersistentIdentifier, changeIdentifier: changeIdentifier,
            transactionIdentifier: transactionIdentifier,
            updatedAttributes: updatedAttributeNames.compactMap { attributes.keyPath(named: $0) })
    }

    /// Whether `keyPath`'s attribute is among ``updatedAttributes``.
    public func updated(_ keyPath: PartialKeyPath<Model>) -> Bool {
        updatedAttributes.contains { $0 == keyPath }
    }
}

/// The delete change of ``DefaultHistoryTransaction``: which `Model` was deleted, and its
/// ``tombstone``.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    public var changedPersistentIdentifier: PersistentIdentifier
    public var changeIdentifier: Int64
    public var transactionIdentifier: Int64
    public var tombstone: HistoryTombstone<Model>

    /// Makes a delete change from its identifiers and the deleted model's preserved values, as given.
    public init(
        changedPersistentIdentifier: PersistentIdentifier, changeIdentifier: Int64, transactionIdentifier: Int64,
        tombstone: HistoryTombstone<Model>
    ) {
        self.changedPersistentIdentifier = changedPersistentIdentifier
        self.changeIdentifier = changeIdentifier
        self.transactionIdentifier = transactionIdentifier
        self.tombstone = tombstone
    }
}

extension PersistentModel {
    /// The typed change of a stored change record, with `Self` as the model.
    static func historyChange(_ record: HistoryRecord.Change, changeIdentifier: Int64, transactionIdentifier: Int64) -> HistoryChange {
        switch record.kind {
        case .insert:
            return .insert(DefaultHistoryInsert<Self>(
                changedPersistentIdentifier: record.persistentIdentifier, changeIdentifier: changeIdentifier,
                transactionIdentifier: transactionIdentifier))
        case .update:
            return .update(DefaultHistoryUpdate<Self>(
                changedPersistentIdentifier: record.persistentIdentifier, changeIdentifier: changeIdentifier,
                transactionIdentifier: transactionIdentifier, updatedAttributeNames: record.updatedAttributes ?? []))
        case .delete:
            return .delete(DefaultHistoryDelete<Self>(
                changedPersistentIdentifier: record.persistentIdentifier, changeIdentifier: changeIdentifier,
                transactionIdentifier: transactionIdentifier, tombstone: HistoryTombstone(values: record.tombstone ?? [:])))
        }
    }
}
