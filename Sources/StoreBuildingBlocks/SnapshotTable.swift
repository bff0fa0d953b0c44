import StoreProtocol

/// The rows of a store in memory, by entity, with unique-constraint indices: the working state a
/// backend applies saves to. ``apply(_:)`` turns a save request into new rows and the history
/// changes it made, all or nothing.
///
/// Rows keep insertion order, which is the order of unsorted fetches.
public struct SnapshotTable: Sendable {
    public let schema: Schema
    private var entities: [String: EntityRows] = [:]

    public init(schema: Schema) {
        self.schema = schema
        for entity in schema.entities { entities[entity.name] = EntityRows(entity: entity) }
    }

    // MARK: Reading

    /// The live rows of an entity in insertion order.
    /// - Complexity: O(*n*) in the entity's rows.
    public func snapshots(of entityName: String) -> [DefaultSnapshot] {
        entities[entityName]?.slots.compactMap { $0 } ?? []
    }

    /// One row, or `nil`.
    /// - Complexity: O(1).
    public func snapshot(for identifier: PersistentIdentifier) -> DefaultSnapshot? {
        guard let rows = entities[identifier.entityName], let slot = rows.slotByKey[identifier.primaryKey] else { return nil }
        return rows.slots[slot]
    }

    /// The rows a fetch of `descriptor` has to evaluate: the one row its predicate names when the
    /// predicate compares `id` with a value (see ``SnapshotQuery/primaryKey(selectedBy:)``),
    /// otherwise every row of the entity.
    /// - Complexity: O(1) for an `id` comparison, O(*n*) otherwise.
    public func candidates<T: PersistentModel>(for descriptor: FetchDescriptor<T>) -> [DefaultSnapshot] {
        guard let key = SnapshotQuery.primaryKey(selectedBy: descriptor.predicate) else { return snapshots(of: T.entityName) }
        return snapshot(for: PersistentIdentifier(entityName: T.entityName, primaryKey: key)).map { [$0] } ?? []
    }

    /// How many rows an entity has.
    public func count(of entityName: String) -> Int { entities[entityName]?.slotByKey.count ?? 0 }

    // MARK: Writing

    /// What a save did: its history changes (empty when nothing changed) and the result to return.
    public struct Outcome<S: DataStoreSnapshot>: Sendable {
        public var changes: [HistoryRecord.Change]
        public var result: DataStoreSaveChangesResult<S>
    }

    /// Applies a save: inserts (an insert that matches a stored row's id or unique constraint
    /// updates that row), updates (a row that is gone is skipped) and deletes (a row that is gone is
    /// no change).
    /// - Throws: ``DataStoreError/Code/unknownEntity``; ``DataStoreError/Code/constraintViolation``
    ///   when an update would make two rows share a unique constraint. The table is then unchanged.
    /// - Complexity: O(*k*) for *k* changes, independent of the table's size.
    public mutating func apply<S: DataStoreSnapshot>(_ request: DataStoreSaveChangesRequest<S>, storeIdentifier: String) throws -> Outcome<S> {
        var undo: [(entity: String, key: SnapshotValue, previous: DefaultSnapshot?)] = []
        var changes: [HistoryRecord.Change] = []
        var result = DataStoreSaveChangesResult<S>(for: storeIdentifier)
        do {
            for snapshot in request.inserted {
                let id = snapshot.persistentIdentifier
                var rows = try takeRows(id.entityName)
                defer { entities[id.entityName] = rows }
                let existingKey = rows.slotByKey[id.primaryKey] != nil ? id.primaryKey : rows.collision(with: snapshot.values, excluding: nil)
                if let existingKey, let stored = rows.row(existingKey) {
                    // Collisions become updates: the stored row keeps its id, takes the new values.
                    var merged = snapshot.values
                    merged["id"] = stored.values["id"]
                    let target = DefaultSnapshot(persistentIdentifier: stored.persistentIdentifier, values: merged)
                    let changed = target.changedAttributes(from: stored.values)
                    if existingKey != id.primaryKey {
                        result.remappedIdentifiers[id] = stored.persistentIdentifier
                        result.snapshotsToReregister[stored.persistentIdentifier] = S(persistentIdentifier: stored.persistentIdentifier, values: merged)
                    }
                    guard !changed.isEmpty else { continue }
                    undo.append((id.entityName, existingKey, stored))
                    try rows.put(target)
                    changes.append(.init(kind: .update, entityName: id.entityName, primaryKey: existingKey, updatedAttributes: changed))
                } else {
                    undo.append((id.entityName, id.primaryKey, nil))
                    try rows.put(DefaultSnapshot(persistentIdentifier: id, values: snapshot.values))
                    changes.append(.init(kind: .insert, entityName: id.entityName, primaryKey: id.primaryKey))
                }
            }
            for snapshot in request.updated {
                let id = snapshot.persistentIdentifier
                var rows = try takeRows(id.entityName)
                defer { entities[id.entityName] = rows }
                guard let stored = rows.row(id.primaryKey) else { continue }
                let changed = snapshot.changedAttributes(from: stored.values)
                guard !changed.isEmpty else { continue }
                undo.append((id.entityName, id.primaryKey, stored))
                try rows.put(DefaultSnapshot(persistentIdentifier: id, values: snapshot.values))
                changes.append(.init(kind: .update, entityName: id.entityName, primaryKey: id.primaryKey, updatedAttributes: changed))
            }
            for snapshot in request.deleted {
                let id = snapshot.persistentIdentifier
                var rows = try takeRows(id.entityName)
                defer { entities[id.entityName] = rows }
                guard let stored = rows.row(id.primaryKey) else { continue }
                undo.append((id.entityName, id.primaryKey, stored))
                rows.remove(id.primaryKey)
                let preserved = stored.values.filter { rows.entity.preservedOnDeletion.contains($0.key) }
                changes.append(.init(kind: .delete, entityName: id.entityName, primaryKey: id.primaryKey, tombstone: preserved))
            }
        } catch {
            // Undo in reverse so that every row returns to its state before this save.
            for step in undo.reversed() {
                guard var rows = entities.removeValue(forKey: step.entity) else { continue }
                rows.remove(step.key)
                if let previous = step.previous { try? rows.put(previous) }
                entities[step.entity] = rows
            }
            throw error
        }
        return Outcome(changes: changes, result: result)
    }

    /// Writes one row as it is (replaying a save recorded elsewhere), replacing the row with the
    /// same identifier.
    /// - Throws: ``DataStoreError/Code/unknownEntity``; ``DataStoreError/Code/constraintViolation``
    ///   when the row would collide with another on a unique constraint.
    public mutating func write(_ snapshot: DefaultSnapshot) throws {
        var rows = try takeRows(snapshot.persistentIdentifier.entityName)
        defer { entities[snapshot.persistentIdentifier.entityName] = rows }
        try rows.put(snapshot)
    }

    /// Removes one row, if present.
    public mutating func remove(_ identifier: PersistentIdentifier) {
        entities[identifier.entityName]?.remove(identifier.primaryKey)
    }

    /// Removes every row.
    public mutating func removeAll() {
        entities = entities.mapValues { EntityRows(entity: $0.entity) }
    }

    /// Moves an entity's rows out of the dictionary so that mutating them does not copy them.
    private mutating func takeRows(_ entityName: String) throws -> EntityRows {
        guard let rows = entities.removeValue(forKey: entityName) else {
            throw DataStoreError.unknownEntity(entityName, in: schema)
        }
        return rows
    }
}

/// One entity's rows: slots in insertion order (deleted slots are `nil` until compaction), and a
/// key index per unique constraint.
private struct EntityRows: Sendable {
    let entity: Schema.Entity
    var slots: [DefaultSnapshot?] = []
    var slotByKey: [SnapshotValue: Int] = [:]
    /// One index per unique constraint: the constraint's values -> primary key.
    var uniqueIndices: [[[SnapshotValue]: SnapshotValue]]

    init(entity: Schema.Entity) {
        self.entity = entity
        uniqueIndices = Array(repeating: [:], count: entity.uniqueConstraints.count)
    }

    func row(_ key: SnapshotValue) -> DefaultSnapshot? { slotByKey[key].flatMap { slots[$0] } }

    /// The values of a unique constraint, `nil` when one is null (nulls never collide).
    func constraintKey(_ constraint: Int, _ values: [String: SnapshotValue]) -> [SnapshotValue]? {
        var key: [SnapshotValue] = []
        for name in entity.uniqueConstraints[constraint] {
            guard let value = values[name], value != .null else { return nil }
            key.append(value)
        }
        return key
    }

    /// The primary key of a stored row that shares a unique constraint with `values`.
    func collision(with values: [String: SnapshotValue], excluding primaryKey: SnapshotValue?) -> SnapshotValue? {
        for constraint in uniqueIndices.indices {
            guard let key = constraintKey(constraint, values), let owner = uniqueIndices[constraint][key] else { continue }
            if owner != primaryKey { return owner }
        }
        return nil
    }

    /// Inserts or replaces a row.
    /// - Throws: ``DataStoreError/Code/constraintViolation`` when it would collide on a unique
    ///   constraint with another row (the row is then unchanged).
    mutating func put(_ snapshot: DefaultSnapshot) throws {
        let key = snapshot.persistentIdentifier.primaryKey
        if let owner = collision(with: snapshot.values, excluding: key) {
            throw DataStoreError(.constraintViolation,
                "Saving \(snapshot.persistentIdentifier) would give it the same unique values as \(entity.name)(\(owner)). "
                + "Change one of them, or delete the other first.")
        }
        if let slot = slotByKey[key], let old = slots[slot] {
            removeFromIndices(old)
            slots[slot] = snapshot
        } else {
            slotByKey[key] = slots.count
            slots.append(snapshot)
        }
        for constraint in uniqueIndices.indices {
            if let constraintKey = constraintKey(constraint, snapshot.values) { uniqueIndices[constraint][constraintKey] = key }
        }
    }

    mutating func remove(_ key: SnapshotValue) {
        guard let slot = slotByKey.removeValue(forKey: key), let old = slots[slot] else { return }
        removeFromIndices(old)
        slots[slot] = nil
        // Compact when most slots are holes, keeping amortized O(1) deletes.
        if slots.count > 64, slotByKey.count < slots.count / 2 {
            let live = slots.compactMap { $0 }
            slots = live
            for (index, row) in live.enumerated() { slotByKey[row.persistentIdentifier.primaryKey] = index }
        }
    }

    private mutating func removeFromIndices(_ snapshot: DefaultSnapshot) {
        for constraint in uniqueIndices.indices {
            if let key = constraintKey(constraint, snapshot.values) { uniqueIndices[constraint][key] = nil }
        }
    }
}
