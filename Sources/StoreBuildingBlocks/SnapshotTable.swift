import StoreProtocol

/// The rows of a store in memory, by entity, with unique-constraint indices: the working state a
/// backend applies saves to. `apply(_:storeIdentifier:)` turns a save request into new rows and
/// the history changes it made, all or nothing.
///
/// Rows keep insertion order, which is the order of unsorted fetches.
public struct SnapshotTable: Sendable {
    /// The entities the table holds rows of, with their unique constraints and indexes.
    public let schema: Schema
    /// Internal, not private: `SnapshotTable+Load.swift` appends rows read from a file.
    var entities: [String: EntityRows] = [:]

    /// Makes an empty table for the entities of `schema`, with empty unique-constraint indices
    /// and attribute indexes (the first attribute of each index or unique constraint).
    public init(schema: Schema) {
        self.init(schema: schema, keepsAttributeIndexes: true)
    }

    /// Makes an empty table for the entities of `schema`, with empty unique-constraint indices,
    /// and attribute indexes when `keepsAttributeIndexes`.
    ///
    /// `keepsAttributeIndexes: false` leaves the attribute indexes out: for a table that only
    /// applies saves (a SQL store's table of the rows a save touches), whose queries run
    /// elsewhere. Its `candidates(for:)` then scan, ``indexedAttributes(of:)`` is empty, and a save
    /// costs no index upkeep.
    public init(schema: Schema, keepsAttributeIndexes: Bool) {
        self.schema = schema
        for entity in schema.entities { entities[entity.name] = EntityRows(entity: entity, keepsAttributeIndexes: keepsAttributeIndexes) }
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
    /// predicate compares `id` with a value (see `SnapshotQuery/primaryKey(selectedBy:)`),
    /// otherwise every row of the entity.
    /// - Complexity: O(1) for an `id` comparison, O(*n*) otherwise.
    public func candidates<T: PersistentModel>(for descriptor: FetchDescriptor<T>) -> [DefaultSnapshot] {
        guard let key = SnapshotQuery.primaryKey(selectedBy: descriptor.predicate) else { return snapshots(of: T.entityName) }
        return row(of: T.self, primaryKey: key)
    }

    /// The row of `T` with primary key `key`, as an array of zero or one.
    private func row<T: PersistentModel>(of type: T.Type, primaryKey key: SnapshotValue) -> [DefaultSnapshot] {
        snapshot(for: PersistentIdentifier(entityName: T.entityName, primaryKey: key)).map { [$0] } ?? []
    }

    /// The rows a fetch has to evaluate. Through an index, when one applies:
    /// - an equality of an indexed attribute (or of `id`) with a constant, or
    ///   `constants.contains(attribute)`, among the operands of the filter's top-level `&&`: the
    ///   rows whose value equals one of the constants as the query compares;
    /// - `<`, `<=`, `>`, `>=` of an indexed attribute with constants there: the rows in that range;
    /// - a request sorted first by an indexed attribute, with a `fetchLimit`, whose filter
    ///   translated whole: the rows in sort order up to the page, and those tied with its last.
    /// Otherwise every row of the entity, in insertion order.
    ///
    /// The rows returned are a superset of those the request selects (they include the rows
    /// whose value does not read as the attribute's type, and `nil` values for a range), never
    /// the answer itself: evaluate the request on them (``QueryEvaluator/fetch(_:over:)``).
    /// Indexed attributes are the first of each group of `Schema/Entity/indices` and of
    /// `Schema/Entity/uniqueConstraints`, when a query can name it
    /// (`Schema/Entity/queryAttributes`).
    /// - Complexity: O(log *n* + *r* log *r*) for *r* rows found by a lookup (the most selective
    ///   when several apply, and only when it finds at most half the rows); O(log *n* + *w*) for
    ///   a walk over *w* rows; O(*n*) for a scan.
    public func candidates<T: PersistentModel>(for request: DataStoreFetchRequest<T>) -> [DefaultSnapshot] {
        // The key is found once here: asking `candidates(for: request.descriptor)` found it again.
        if let key = SnapshotQuery.primaryKey(selectedBy: request.descriptor.predicate) { return row(of: T.self, primaryKey: key) }
        // The request's translated query carries `T.entityName`: asking the type again is a
        // locked lookup (``PersistentModel/entityName``).
        guard let rows = entities[request.query.entityName] else { return [] }
        return rows.indexedCandidates(request) ?? rows.slots.compactMap { $0 }
    }

    /// The rows `request` selects, sorted and paged, decided on the table's columns of query
    /// attributes: the filter is compiled once into typed comparisons over columns, a sort with a
    /// limit keeps the best rows in a bounded heap, and only the rows returned are read. The
    /// answer is the one ``QueryEvaluator/fetch(_:over:)`` gives over
    /// `candidates(for:)`.
    ///
    /// `nil` when the stored values cannot decide it alone (a predicate or sort that did not
    /// translate whole, a stored value that does not read as its attribute's type, a NaN sort
    /// value with a limit), and for a request that a walk of an index in sort order answers:
    /// evaluate the candidates (`candidates(for:)`) with
    /// ``QueryEvaluator/fetch(_:over:)``. A table made with
    /// `keepsAttributeIndexes: false` keeps no columns and always answers `nil`.
    /// - Complexity: O(*n*) typed comparisons per operand of the filter's top-level `&&` (O(*r*)
    ///   for *r* rows an index finds), O(*m* log *k*) comparisons for *m* matches and a limit *k*.
    public func selectedSnapshots<T: PersistentModel>(for request: DataStoreFetchRequest<T>) -> [DefaultSnapshot]? {
        entities[request.query.entityName]?.scan(request)
    }

    /// How many rows `request` selects (with its offset and limit), decided on the table's
    /// columns without reading a row; `nil` when ``selectedSnapshots(for:)`` would be: count the
    /// candidates with ``QueryEvaluator/count(_:over:)``.
    /// - Complexity: as ``selectedSnapshots(for:)`` without the sort.
    public func selectedCount<T: PersistentModel>(for request: DataStoreFetchRequest<T>) -> Int? {
        entities[request.query.entityName]?.scanCount(request)
    }

    /// The attributes of an entity that have an equality index, by stored name.
    public func indexedAttributes(of entityName: String) -> [String] {
        entities[entityName]?.indexes.map(\.attribute.name) ?? []
    }

    /// The primary keys an attribute's equality index holds for `attribute == constant` (the
    /// rows whose value equals it as a query compares, and those whose value does not read as
    /// the attribute's type), in no order; `nil` when the attribute has no index or the
    /// constant is not a canonical value of its type. For tests and diagnostics.
    /// - Complexity: O(*r*) for *r* keys returned.
    package func indexLookup(_ entityName: String, attribute name: String, equalTo constant: SnapshotValue) -> [SnapshotValue]? {
        entities[entityName]?.indexes.first(where: { $0.attribute.name == name })?.primaryKeys(equalToAnyOf: [constant])
    }

    /// How many rows an entity has.
    public func count(of entityName: String) -> Int { entities[entityName]?.slotByKey.count ?? 0 }

    // MARK: Writing

    /// What a save did: its history changes (empty when nothing changed) and the result to return.
    public struct Outcome<S: DataStoreSnapshot>: Sendable {
        /// The history changes the save made, for one transaction, in the request's order: its
        /// inserts (an insert that matched a stored row as an update), updates, then deletes;
        /// empty when nothing changed.
        public var changes: [HistoryRecord.Change]
        /// What the store returns to the context: for each insert that matched a stored row under
        /// another id, the remapped identifier and the merged row to register.
        public var result: DataStoreSaveChangesResult<S>
    }

    /// Applies a save: deletes (a row that is gone is no change), updates (a row that is gone is
    /// skipped; a stored row takes the attributes the request's `updatedAttributes` names, see
    /// `DataStoreSaveChangesRequest/storedValues(updating:with:entity:)`), then inserts (an insert that matches a row's id or unique constraint, as the
    /// deletes and updates left it, updates that row). So deleting a model, or changing its unique
    /// values, and inserting one with its former values in the same save stores both.
    /// - Throws: `DataStoreError/Code/unknownEntity`; `DataStoreError/Code/invalidSchema` for
    ///   `updatedAttributes` that name no attribute or no update;
    ///   `DataStoreError/Code/constraintViolation`
    ///   when an update would make two rows share a unique constraint, or when an insert that
    ///   matches a stored row would change that row's relationships (the related rows would keep
    ///   naming it as it was). The table is then unchanged.
    /// - Complexity: O(*k*) for *k* changes, independent of the table's size.
    public mutating func apply<S: DataStoreSnapshot>(_ request: DataStoreSaveChangesRequest<S>, storeIdentifier: String) throws -> Outcome<S> {
        var undo: [UndoStep] = []
        var changes: [HistoryRecord.Change] = []
        var result = DataStoreSaveChangesResult<S>(for: storeIdentifier)
        try request.checkUpdatedAttributes()
        do {
            // Deletes, then updates, then inserts: an insert collides with the rows as this save
            // leaves them, not with a row it deletes or a unique value it changes (the context
            // checks what it holds the same way). The history lists inserts, updates, deletes.
            var insertChanges: [HistoryRecord.Change] = [], updateChanges: [HistoryRecord.Change] = []
            var deleteChanges: [HistoryRecord.Change] = []
            for snapshot in request.deleted {
                let id = snapshot.persistentIdentifier
                var rows = try takeRows(id.entityName)
                defer { entities[id.entityName] = rows }
                guard let stored = rows.row(id.primaryKey), let place = rows.place(of: id.primaryKey) else { continue }
                undo.append(.deleted(stored, place))
                rows.remove(id.primaryKey, compacting: false)   // slots keep their numbers until the save is done
                let preserved = stored.values.filter { rows.entity.preservedOnDeletion.contains($0.key) }
                deleteChanges.append(.init(kind: .delete, entityName: id.entityName, primaryKey: id.primaryKey, tombstone: preserved))
            }
            // Updates are checked against unique constraints together, on the rows they leave (as
            // a database checks a deferred constraint at commit): two models that swap unique
            // values in one save are no collision, though either one alone would be.
            var updatedRows: [String: [DefaultSnapshot]] = [:], updatedEntities: [String] = []
            for snapshot in request.updated {
                let id = snapshot.persistentIdentifier
                guard let rows = entities[id.entityName] else { throw DataStoreError.unknownEntity(id.entityName, in: schema) }
                guard let stored = updatedRows[id.entityName]?.last(where: { $0.persistentIdentifier == id }) ?? rows.row(id.primaryKey) else { continue }
                // Only what the saving context changed: what another save wrote meanwhile stays.
                let target = DefaultSnapshot(
                    persistentIdentifier: id, values: try request.storedValues(updating: stored.values, with: snapshot, entity: rows.entity))
                let changed = target.changedAttributes(from: stored.values)
                guard !changed.isEmpty else { continue }
                undo.append(.replaced(stored))
                if updatedRows[id.entityName] == nil { updatedEntities.append(id.entityName) }
                updatedRows[id.entityName, default: []].append(target)
                updateChanges.append(.init(kind: .update, entityName: id.entityName, primaryKey: id.primaryKey, updatedAttributes: changed))
            }
            for entityName in updatedEntities {
                var rows = try takeRows(entityName)
                defer { entities[entityName] = rows }
                try rows.put(updatedRows[entityName] ?? [])
            }
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
                    if let relationship = rows.entity.relationships.first(where: { changed.contains($0.name) }) {
                        // The related models would keep naming this row as it was: refuse rather
                        // than leave the two sides of the relationship disagreeing.
                        throw DataStoreError(.constraintViolation,
                            "Inserting \(id) matches the stored \(stored.persistentIdentifier) (same id or unique values), so it "
                            + "would update it, changing its relationship `\(relationship.name)`; the related models would still "
                            + "name the stored one as it was. Fetch the stored model and change it instead; nothing was saved.")
                    }
                    if existingKey != id.primaryKey {
                        result.remappedIdentifiers[id] = stored.persistentIdentifier
                        result.snapshotsToReregister[stored.persistentIdentifier] = S(persistentIdentifier: stored.persistentIdentifier, values: merged)
                    }
                    guard !changed.isEmpty else { continue }
                    undo.append(.replaced(stored))
                    try rows.put(target)
                    insertChanges.append(.init(kind: .update, entityName: id.entityName, primaryKey: existingKey, updatedAttributes: changed))
                } else {
                    undo.append(.inserted(id))
                    try rows.put(DefaultSnapshot(persistentIdentifier: id, values: snapshot.values))
                    insertChanges.append(.init(kind: .insert, entityName: id.entityName, primaryKey: id.primaryKey))
                }
            }
            changes = insertChanges + updateChanges + deleteChanges
        } catch {
            // Undo in reverse, so that every row returns to its state before this save, in its
            // place: a replaced row is replaced back where it is, a deleted one goes back into
            // its slot with its sequence (the order of unsorted fetches and of ties).
            for step in undo.reversed() {
                let entity = step.identifier.entityName
                guard var rows = entities.removeValue(forKey: entity) else { continue }
                switch step {
                case .inserted(let id): rows.remove(id.primaryKey, compacting: false)
                case .replaced(let previous): rows.overwrite(previous)   // valid with the rows restored before it
                case .deleted(let previous, let place): rows.restore(previous, at: place)
                }
                entities[entity] = rows
            }
            for name in Set(undo.map(\.identifier.entityName)) { entities[name]?.compactIfSparse() }
            throw error
        }
        for name in Set(request.deleted.map(\.persistentIdentifier.entityName)) { entities[name]?.compactIfSparse() }
        return Outcome(changes: changes, result: result)
    }

    /// One change of a save, as its undo needs it.
    private enum UndoStep {
        case inserted(PersistentIdentifier)
        case replaced(DefaultSnapshot)
        case deleted(DefaultSnapshot, EntityRows.Place)

        var identifier: PersistentIdentifier {
            switch self {
            case .inserted(let id): return id
            case .replaced(let row), .deleted(let row, _): return row.persistentIdentifier
            }
        }
    }


    /// Writes one row as it is (replaying a save recorded elsewhere), replacing the row with the
    /// same identifier.
    /// - Throws: `DataStoreError/Code/unknownEntity`; `DataStoreError/Code/constraintViolation`
    ///   when the row would collide with another on a unique constraint.
    public mutating func write(_ snapshot: DefaultSnapshot) throws {
        var rows = try takeRows(snapshot.persistentIdentifier.entityName)
        defer { entities[snapshot.persistentIdentifier.entityName] = rows }
        try rows.put(snapshot)
    }

    /// Writes rows as they are (replaying one save recorded elsewhere), each replacing the row
    /// with its identifier, checked against unique constraints together on the rows they leave:
    /// rows that swapped unique values in one save are written back as they were saved.
    /// - Throws: `DataStoreError/Code/unknownEntity`; `DataStoreError/Code/constraintViolation`
    ///   when two rows would then share a unique constraint's values (nothing is written then).
    public mutating func write(together snapshots: [DefaultSnapshot]) throws {
        let byEntity = Dictionary(grouping: snapshots, by: \.persistentIdentifier.entityName)
        for entityName in byEntity.keys where entities[entityName] == nil { throw DataStoreError.unknownEntity(entityName, in: schema) }
        // Every entity checked before any is written: all or nothing.
        for (entityName, rows) in byEntity { try entities[entityName]?.checkUniqueness(of: rows) }
        for (entityName, rows) in byEntity {
            var table = try takeRows(entityName)
            table.overwrite(rows)
            entities[entityName] = table
        }
    }

    /// Removes one row, if present.
    public mutating func remove(_ identifier: PersistentIdentifier) {
        entities[identifier.entityName]?.remove(identifier.primaryKey)
    }

    /// Removes every row.
    public mutating func removeAll() {
        // A table kept without attribute indexes stays without them.
        entities = entities.mapValues { EntityRows(entity: $0.entity, keepsAttributeIndexes: !$0.indexes.isEmpty || !$0.columns.isEmpty) }
    }

    /// Moves an entity's rows out of the dictionary so that mutating them does not copy them.
    private mutating func takeRows(_ entityName: String) throws -> EntityRows {
        guard let rows = entities.removeValue(forKey: entityName) else {
            throw DataStoreError.unknownEntity(entityName, in: schema)
        }
        return rows
    }
}

/// One entity's rows: slots in insertion order (deleted slots are `nil` until compaction), a
/// key index per unique constraint, and an ordered index per indexed attribute. `put(_:)`
/// and `remove(_:)` keep every index in step, so every way a table changes (a save, its undo,
/// a replayed journal entry, a reopen that writes each row) does.
struct EntityRows: Sendable {
    let entity: Schema.Entity
    var slots: [DefaultSnapshot?] = []
    /// Each slot's insertion sequence: it orders rows with equal values in an `AttributeIndex`
    /// as the slots order them, and unlike a slot number it survives compaction.
    var sequences: [Int] = []
    var nextSequence = 0
    var slotByKey: [SnapshotValue: Int] = [:]
    /// One index per unique constraint: the constraint's values -> primary key.
    var uniqueIndices: [[[SnapshotValue]: SnapshotValue]]
    /// Ordered indexes for queries: the first attribute of each indexed group and unique
    /// constraint (except `id`, which `slotByKey` indexes), once each.
    var indexes: [AttributeIndex]
    /// The values of every query attribute (`Schema/Entity/queryAttributes`), by slot, for scans
    /// (see `EntityRows.scan(_:)`); empty without attribute indexes.
    var columns: [AttributeColumn]
    /// `entity.queryAttributes["id"]`, looked up once: a fetch by id asks it (`idLookup`), and
    /// the lookup hashes the name (about 400 instructions, callgrind).
    let idAttribute: QueryAttribute?

    init(entity: Schema.Entity, keepsAttributeIndexes: Bool = true) {
        self.entity = entity
        idAttribute = entity.queryAttributes["id"]
        uniqueIndices = Array(repeating: [:], count: entity.uniqueConstraints.count)
        guard keepsAttributeIndexes else {
            indexes = []
            columns = []
            return
        }
        columns = AttributeColumn.columns(of: entity)
        var names: [String] = []
        for group in entity.indices + entity.uniqueConstraints {
            guard let first = group.first, first != "id", !names.contains(first), entity.queryAttributes[first] != nil else { continue }
            names.append(first)
        }
        indexes = names.compactMap { entity.queryAttributes[$0].map(AttributeIndex.init) }
    }

    func row(_ key: SnapshotValue) -> DefaultSnapshot? { slotByKey[key].flatMap { slots[$0] } }


    /// The primary key of a stored row that shares a unique constraint with `values`.
    func collision(with values: [String: SnapshotValue], excluding primaryKey: SnapshotValue?) -> SnapshotValue? {
        collidingConstraint(with: values, excluding: primaryKey)?.owner
    }

    /// The first unique constraint on which `values` collide with another row, and that row's key.
    private func collidingConstraint(with values: [String: SnapshotValue], excluding primaryKey: SnapshotValue?) -> (constraint: Int, owner: SnapshotValue)? {
        for constraint in uniqueIndices.indices {
            guard let key = entity.uniqueKey(constraint, in: values), let owner = uniqueIndices[constraint][key] else { continue }
            if owner != primaryKey { return (constraint, owner) }
        }
        return nil
    }

    /// Inserts or replaces a row (a replaced row keeps its place in insertion order).
    /// - Throws: `DataStoreError/Code/constraintViolation` when it would collide on a unique
    ///   constraint with another row (the row is then unchanged).
    /// - Complexity: O(1) amortized, and O(log *n*) per ordered index.
    mutating func put(_ snapshot: DefaultSnapshot) throws {
        let key = snapshot.persistentIdentifier.primaryKey
        if let (constraint, owner) = collidingConstraint(with: snapshot.values, excluding: key) {
            throw violation(snapshot, constraint: constraint, owner: owner)
        }
        overwrite(snapshot)
    }

    /// Inserts or replaces several rows, checked against unique constraints together on the rows
    /// they leave (``checkUniqueness(of:)``), so rows may swap unique values.
    /// - Throws: `DataStoreError/Code/constraintViolation` when two rows would then share a
    ///   unique constraint's values (the rows are then unchanged).
    /// - Complexity: O(*k*) for *k* rows, and O(log *n*) per ordered index.
    mutating func put(_ snapshots: [DefaultSnapshot]) throws {
        try checkUniqueness(of: snapshots)
        overwrite(snapshots)
    }

    /// Throws `DataStoreError/Code/constraintViolation` unless the rows `snapshots` (each replacing
    /// the row of its key, a later one of a key replacing an earlier) leave every unique
    /// constraint's values held by one row at most, with the rows not among them as they are.
    func checkUniqueness(of snapshots: [DefaultSnapshot]) throws {
        var last: [SnapshotValue: Int] = [:]
        for (index, snapshot) in snapshots.enumerated() { last[snapshot.persistentIdentifier.primaryKey] = index }
        for constraint in uniqueIndices.indices {
            var holders: [[SnapshotValue]: SnapshotValue] = [:]
            for (index, snapshot) in snapshots.enumerated() where last[snapshot.persistentIdentifier.primaryKey] == index {
                let key = snapshot.persistentIdentifier.primaryKey
                guard let values = entity.uniqueKey(constraint, in: snapshot.values) else { continue }
                // A stored holder among the rows written gives the values up unless it keeps them
                // (then it is in `holders` too).
                let stored = uniqueIndices[constraint][values].flatMap { last[$0] == nil ? $0 : nil }
                if let owner = holders[values] ?? stored, owner != key { throw violation(snapshot, constraint: constraint, owner: owner) }
                holders[values] = key
            }
        }
    }

    /// Writes rows checked together: first every one's old values leave the indices, so that
    /// one row's new value is not taken for another's old one.
    mutating func overwrite(_ snapshots: [DefaultSnapshot]) {
        for snapshot in snapshots {
            guard let slot = slotByKey[snapshot.persistentIdentifier.primaryKey], let old = slots[slot] else { continue }
            removeFromUniqueIndices(old)
        }
        for snapshot in snapshots { overwrite(snapshot) }
    }

    /// The error for a row that would share a unique constraint's values with `owner`'s. The
    /// message names the models and the constraint, never the values (user data, kept out of
    /// logs); those are in the error's debugDetails.
    private func violation(_ snapshot: DefaultSnapshot, constraint: Int, owner: SnapshotValue) -> DataStoreError {
        let names = entity.uniqueConstraints[constraint]
        return DataStoreError(.constraintViolation,
            "Saving \(snapshot.persistentIdentifier) would give it the same \(names.joined(separator: ", ")) (a unique constraint) as "
            + "\(entity.name)(\(owner)). Change one of them, or delete the other first.",
            debugDetails: names.map { "\($0) = \(snapshot.values[$0] ?? .null)" }.joined(separator: ", "))
    }

    /// Inserts or replaces a row without checking unique constraints: for rows checked already,
    /// and for a failed save's undo, which puts back rows that were valid together. A unique
    /// value the row held is left in the index when another row holds it now.
    mutating func overwrite(_ snapshot: DefaultSnapshot) {
        let key = snapshot.persistentIdentifier.primaryKey
        let sequence: Int
        if let slot = slotByKey[key], let old = slots[slot] {
            sequence = sequences[slot]
            removeFromIndices(old, sequence: sequence)
            slots[slot] = snapshot
            for column in columns.indices { columns[column].write(snapshot.values, at: slot) }
        } else {
            sequence = nextSequence
            nextSequence += 1
            slotByKey[key] = slots.count
            for column in columns.indices { columns[column].write(snapshot.values, at: slots.count) }
            slots.append(snapshot)
            sequences.append(sequence)
        }
        for constraint in uniqueIndices.indices {
            if let constraintKey = entity.uniqueKey(constraint, in: snapshot.values) { uniqueIndices[constraint][constraintKey] = key }
        }
        for index in indexes.indices { indexes[index].insert(snapshot.values, primaryKey: key, sequence: sequence) }
    }

    /// Where a row is: its slot and its insertion sequence.
    struct Place {
        let slot: Int
        let sequence: Int
    }

    func place(of key: SnapshotValue) -> Place? {
        slotByKey[key].map { Place(slot: $0, sequence: sequences[$0]) }
    }

    /// Removes a row; `compacting: false` keeps every slot's number (a save that may be undone
    /// compacts when it is done).
    mutating func remove(_ key: SnapshotValue, compacting: Bool = true) {
        guard let slot = slotByKey.removeValue(forKey: key), let old = slots[slot] else { return }
        removeFromIndices(old, sequence: sequences[slot])
        slots[slot] = nil
        for column in columns.indices { columns[column].clear(slot) }
        if compacting { compactIfSparse() }
    }

    /// Puts a removed row back into its slot, with its sequence. The slot must still be empty
    /// (no compaction since the removal).
    mutating func restore(_ snapshot: DefaultSnapshot, at place: Place) {
        let key = snapshot.persistentIdentifier.primaryKey
        slots[place.slot] = snapshot
        sequences[place.slot] = place.sequence
        for column in columns.indices { columns[column].write(snapshot.values, at: place.slot) }
        slotByKey[key] = place.slot
        for constraint in uniqueIndices.indices {
            if let constraintKey = entity.uniqueKey(constraint, in: snapshot.values) { uniqueIndices[constraint][constraintKey] = key }
        }
        for index in indexes.indices { indexes[index].insert(snapshot.values, primaryKey: key, sequence: place.sequence) }
    }

    /// Compacts when most slots are holes, keeping deletes amortized O(1).
    mutating func compactIfSparse() {
        if slots.count > 64, slotByKey.count < slots.count / 2 {
            var live: [DefaultSnapshot?] = [], liveSequences: [Int] = [], liveSlots: [Int] = []
            live.reserveCapacity(slotByKey.count)
            liveSequences.reserveCapacity(slotByKey.count)
            liveSlots.reserveCapacity(slotByKey.count)
            for (slot, row) in slots.enumerated() {
                guard let row else { continue }
                slotByKey[row.persistentIdentifier.primaryKey] = live.count
                live.append(row)
                liveSequences.append(sequences[slot])
                liveSlots.append(slot)
            }
            slots = live
            sequences = liveSequences
            for column in columns.indices { columns[column].compact(keeping: liveSlots) }
        }
    }

    private mutating func removeFromIndices(_ snapshot: DefaultSnapshot, sequence: Int) {
        removeFromUniqueIndices(snapshot)
        let key = snapshot.persistentIdentifier.primaryKey
        for index in indexes.indices { indexes[index].remove(snapshot.values, primaryKey: key, sequence: sequence) }
    }

    /// Takes a row's unique values out of the indices, each only while it names this row (rows
    /// written together may have handed it to another already).
    private mutating func removeFromUniqueIndices(_ snapshot: DefaultSnapshot) {
        let key = snapshot.persistentIdentifier.primaryKey
        for constraint in uniqueIndices.indices {
            if let values = entity.uniqueKey(constraint, in: snapshot.values), uniqueIndices[constraint][values] == key {
                uniqueIndices[constraint][values] = nil
            }
        }
    }
}
