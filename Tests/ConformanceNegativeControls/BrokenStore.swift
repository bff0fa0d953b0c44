import Foundation
import MemoryStore
import StoreProtocol

/// A store that keeps the contract but for one flaw: the conformance suite's negative control.
/// Each flaw is a bug a backend author could really write; the suite must catch every one.
enum Flaw: String, CaseIterable, Sendable {
    /// Answers fetches without applying `fetchOffset` and `fetchLimit`.
    case ignoresPaging
    /// Answers sorted fetches unsorted.
    case ignoresSort
    /// Reads history from the token's own transaction on, not after it.
    case repeatsTheTokensTransaction
    /// Lists each transaction's changes in reverse order.
    case reversesChanges
    /// Stores an insert whose id is already stored as a second row.
    case duplicatesInsertsOfAStoredID
    /// Saves inserts and updates but drops deletes.
    case dropsDeletes
    /// Writes every attribute of an updated model's snapshot, not only those the save names as
    /// changed: a save puts back what another context saved meanwhile (the lost update).
    case writesWholeSnapshots
    /// Writes the attributes a save names, but a changed to-many relationship as the saving
    /// context's whole array, not as the members it added and removed: of two saves adding
    /// members to one relationship, the later one drops the other's.
    case writesToManyRelationshipsWhole
    /// Keys rows by the bytes of their key, as a table keyed by its text does: an insert whose
    /// key equals a stored one in another spelling (`"café"` decomposed, `-0.0`) is a second row.
    case keysRowsBySpelling
    /// Updates a row's attributes but keeps its stored relationships (a SQL store that updates
    /// the attribute columns only).
    case keepsRelationshipsOnUpdate
    /// Finds unique values holding a NaN equal by their bytes (a unique text column of the
    /// values' JSON): a second model whose unique value is NaN is refused.
    case collidesOnNaN
    /// Keeps dates to the whole second, as a column of a type without fractions would.
    case dropsSubSecondDates
    /// Stores the elements of an attribute's arrays in reverse order (relationships kept).
    case reversesArrays
    /// Lists every attribute of the entity in each update of its history, not only those the
    /// save changed.
    case reportsEveryAttributeAsUpdated
    /// Checks each updated row's unique values against the other rows as the save's earlier
    /// updates left them, not against the rows the whole save leaves: a swap is refused.
    case checksUniqueValuesRowByRow
}

struct BrokenStoreConfiguration: DataStoreConfiguration {
    typealias Store = BrokenStore
    var name = "broken"
    var schema: Schema?
    var allowsSave = true
    /// `nil`: the wrapped store as it is, the control's control.
    let flaw: Flaw?
    /// The name of a shared memory store to wrap, so that opening the configuration twice opens
    /// one store (the `persistence` cases); `nil` for a private one.
    var sharedName: String? = nil
}

/// A ``MemoryStore`` behind one ``Flaw``.
final class BrokenStore: DataStore, HistoryProviding {
    typealias Snapshot = DefaultSnapshot
    typealias HistoryType = DefaultHistoryTransaction

    let configuration: BrokenStoreConfiguration
    private let inner: MemoryStore
    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }

    init(_ configuration: BrokenStoreConfiguration) throws {
        self.configuration = configuration
        inner = try MemoryStore(MemoryStoreConfiguration(
            name: configuration.sharedName ?? "memory", schema: configuration.schema, isShared: configuration.sharedName != nil))
    }

    private var flaw: Flaw? { configuration.flaw }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        var descriptor = request.descriptor
        if flaw == .ignoresPaging {
            descriptor.fetchOffset = nil
            descriptor.fetchLimit = nil
        }
        if flaw == .ignoresSort { descriptor.sortBy = [] }
        let result = try inner.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: request.editingState))
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: result.fetchedSnapshots)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        var request = request
        if flaw == .duplicatesInsertsOfAStoredID {
            request.inserted = request.inserted.map { snapshot in
                let id = snapshot.persistentIdentifier
                guard isStored(id) else { return snapshot }
                var values = snapshot.values
                values["id"] = .uuid(UUID())
                return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: id.entityName, primaryKey: values["id"]!),
                                       values: values)
            }
        }
        if flaw == .keysRowsBySpelling {
            request.inserted = request.inserted.map { snapshot in
                let id = snapshot.persistentIdentifier
                guard let stored = storedIdentifiers(of: id.entityName).first(where: { $0 == id }),
                      spelling(stored.primaryKey) != spelling(id.primaryKey) else { return snapshot }
                // Another spelling of a stored key: a row of its own, under a key of its bytes.
                return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: id.entityName, primaryKey: .string(spelling(id.primaryKey))),
                                       values: snapshot.values)
            }
        }
        if flaw == .collidesOnNaN { try refuseASecondNaN(request.inserted) }
        if flaw == .checksUniqueValuesRowByRow { try refuseUniqueValuesHeldBeforeTheSave(request.updated) }
        if flaw == .dropsDeletes { request.deleted = [] }
        if flaw == .dropsSubSecondDates {
            request.inserted = request.inserted.map { alterAttributes(of: $0, with: Self.wholeSeconds) }
            request.updated = request.updated.map { alterAttributes(of: $0, with: Self.wholeSeconds) }
        }
        if flaw == .reversesArrays {
            request.inserted = request.inserted.map { alterAttributes(of: $0, with: Self.reversed) }
            request.updated = request.updated.map { alterAttributes(of: $0, with: Self.reversed) }
        }
        if flaw == .writesWholeSnapshots {
            request.updatedAttributes = [:]
            request.toManyChanges = [:]
        }
        if flaw == .writesToManyRelationshipsWhole { request.toManyChanges = [:] }
        if flaw == .keepsRelationshipsOnUpdate {
            request.updated = request.updated.map { snapshot in
                let id = snapshot.persistentIdentifier
                guard let entity = schema.entity(named: id.entityName), let stored = storedValues(id) else { return snapshot }
                var values = snapshot.values
                for relationship in entity.relationships { values[relationship.name] = stored[relationship.name] }
                return DefaultSnapshot(persistentIdentifier: id, values: values)
            }
        }
        return try inner.save(request)
    }

    func erase() throws { try inner.erase() }

    func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        var descriptor = descriptor
        if flaw == .repeatsTheTokensTransaction, let after = descriptor.after {
            descriptor.after = DefaultHistoryToken(positions: after.positions.mapValues { max(0, $0 - 1) })
        }
        return try inner.fetchHistory(descriptor).map { transaction in
            var transaction = transaction
            if flaw == .reversesChanges { transaction.changes.reverse() }
            if flaw == .reportsEveryAttributeAsUpdated { transaction.changes = transaction.changes.map(listingEveryAttribute) }
            return transaction
        }
    }

    func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws { try inner.deleteHistory(descriptor) }

    func currentHistoryToken() throws -> DefaultHistoryToken? { try inner.currentHistoryToken() }

    /// `snapshot` with `alter` applied to each attribute's value (not to relationships).
    private func alterAttributes(of snapshot: DefaultSnapshot, with alter: (SnapshotValue) -> SnapshotValue) -> DefaultSnapshot {
        let id = snapshot.persistentIdentifier
        let relationships = Set(schema.entity(named: id.entityName)?.relationships.map(\.name) ?? [])
        var values = snapshot.values
        for (name, value) in values where !relationships.contains(name) { values[name] = alter(value) }
        return DefaultSnapshot(persistentIdentifier: id, values: values)
    }

    /// Every date inside `value` cut to the whole second.
    private static func wholeSeconds(_ value: SnapshotValue) -> SnapshotValue {
        switch value {
        case .date(let date): .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let elements): .array(elements.map(wholeSeconds))
        case .object(let fields): .object(fields.mapValues(wholeSeconds))
        default: value
        }
    }

    /// Every array inside `value` in reverse order.
    private static func reversed(_ value: SnapshotValue) -> SnapshotValue {
        switch value {
        case .array(let elements): .array(elements.reversed().map(reversed))
        case .object(let fields): .object(fields.mapValues(reversed))
        default: value
        }
    }

    /// An update listing every attribute of its entity; other changes as they are.
    private func listingEveryAttribute(_ change: HistoryChange) -> HistoryChange {
        guard case .update(let update) = change,
              let entity = schema.entity(named: update.changedPersistentIdentifier.entityName) else { return change }
        func everything<U: HistoryUpdate>(_ update: U) -> HistoryChange {
            .update(DefaultHistoryUpdate<U.Model>(
                changedPersistentIdentifier: update.changedPersistentIdentifier, changeIdentifier: update.changeIdentifier,
                transactionIdentifier: update.transactionIdentifier, updatedAttributeNames: entity.attributeNames))
        }
        return everything(update)
    }

    private func storedValues(_ id: PersistentIdentifier) -> [String: SnapshotValue]? {
        guard let type = schema.entity(named: id.entityName)?.modelType else { return nil }
        func run<T: PersistentModel>(_ type: T.Type) -> [String: SnapshotValue]? {
            (try? inner.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>())))?.fetchedSnapshots
                .first { $0.persistentIdentifier == id }?.values
        }
        return run(type)
    }

    /// Throws `.constraintViolation` when an inserted model's unique values hold a NaN and a
    /// stored model, or another inserted one, holds a NaN in the same constraint.
    private func refuseASecondNaN(_ inserted: [DefaultSnapshot]) throws {
        var holders: [String: Int] = [:]   // per entity and constraint
        for snapshot in inserted {
            let id = snapshot.persistentIdentifier
            guard let entity = schema.entity(named: id.entityName) else { continue }
            for constraint in entity.uniqueConstraints.indices where entity.uniqueKey(constraint, in: snapshot.values)?.contains(where: \.holdsNaN) == true {
                let slot = "\(id.entityName)/\(constraint)"
                if holders[slot] == nil {
                    holders[slot] = storedValues(of: id.entityName).count { entity.uniqueKey(constraint, in: $0)?.contains(where: \.holdsNaN) == true }
                }
                holders[slot, default: 0] += 1
                if holders[slot]! > 1 { throw DataStoreError(.constraintViolation, "two NaN unique values have one key") }
            }
        }
    }

    /// Throws `.constraintViolation` when an updated model takes unique values that another row
    /// holds as the save's earlier updates left it, as a store that writes and checks one row at
    /// a time does.
    private func refuseUniqueValuesHeldBeforeTheSave(_ updated: [DefaultSnapshot]) throws {
        var rows: [PersistentIdentifier: [String: SnapshotValue]] = [:]
        for snapshot in updated {
            let id = snapshot.persistentIdentifier
            guard let entity = schema.entity(named: id.entityName), !entity.uniqueConstraints.isEmpty else { continue }
            if !rows.keys.contains(where: { $0.entityName == id.entityName }) {
                for values in storedValues(of: id.entityName) {
                    if let key = values["id"] { rows[PersistentIdentifier(entityName: id.entityName, primaryKey: key)] = values }
                }
            }
            let values = (rows[id] ?? [:]).merging(snapshot.values) { $1 }
            for constraint in entity.uniqueConstraints.indices {
                guard let key = entity.uniqueKey(constraint, in: values) else { continue }
                if rows.contains(where: { $0.key != id && $0.key.entityName == id.entityName && entity.uniqueKey(constraint, in: $0.value) == key }) {
                    throw DataStoreError(.constraintViolation, "an updated row takes unique values another row still holds")
                }
            }
            rows[id] = values
        }
    }

    private func storedValues(of entityName: String) -> [[String: SnapshotValue]] {
        guard let type = schema.entity(named: entityName)?.modelType else { return [] }
        func run<T: PersistentModel>(_ type: T.Type) -> [[String: SnapshotValue]] {
            ((try? inner.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>())))?.fetchedSnapshots ?? []).map(\.values)
        }
        return run(type)
    }

    private func isStored(_ id: PersistentIdentifier) -> Bool {
        storedIdentifiers(of: id.entityName).contains(id)
    }

    private func storedIdentifiers(of entityName: String) -> [PersistentIdentifier] {
        guard let type = schema.entity(named: entityName)?.modelType else { return [] }
        func run<T: PersistentModel>(_ type: T.Type) -> [PersistentIdentifier] {
            (try? inner.fetchIdentifiers(DataStoreFetchRequest(descriptor: FetchDescriptor<T>()))) ?? []
        }
        return run(type)
    }

    /// A key's spelling as its Unicode scalars (`String`'s `==` would find two spellings equal):
    /// `-0.0` and `0.0`, precomposed and decomposed strings differ.
    private func spelling(_ key: SnapshotValue) -> String {
        key.description.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
    }
}
