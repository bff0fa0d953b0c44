import DataStores

/// Merges incoming models into one destination store, collecting the one save that applies them
/// with their clock records; keeps to-many relationships that follow a to-one inverse in step
/// with it (as a `ModelContext` does); merges two models that collide on a unique constraint.
///
/// A model arrives as it is *now* on the source, so it can hold a unique value that, here, a
/// model still holds which on the source moved off it (or was deleted) in a later source
/// transaction. That is a value moving, not two replicas choosing one value: the session brings
/// that model's source state (or deletion) into the same save, and so on for what it brings
/// (``source``). Only a model that still holds the value after that collides.
struct MergeSession {
    let destination: SyncStore
    let parts: [String: SyncedParts]
    let resolver: any ConflictResolver
    /// Dates the held side's changes that no round dated yet (`nil`: leave them undated).
    let heldFresh: ModelDating.Fresh?
    var save = SyncSave()
    var resolutions: [SyncResolution] = []
    /// Models whose data the save changes.
    var appliedChanges = 0
    /// The clocks received, for the destination replica's clock.
    var received: [(id: PersistentIdentifier, clocks: ModelClocks)] = []
    /// Whether the save merged two models on a unique constraint (its origin must see it too).
    var mergedUniqueKeys = false
    /// The side the models come from, read for the models that a unique value moved off there
    /// (`nil`: none is read, every holder here collides).
    var source: SyncSource?
    /// The models being merged, each with the row it will leave: a unique value they hold here
    /// but are leaving is no collision while the model that takes it is merged.
    private var merging: [PersistentIdentifier: [String: SnapshotValue]] = [:]
    /// The models brought in from the source because a value moved off them there.
    private var broughtIn: Set<PersistentIdentifier> = []
    /// Per entity with unique constraints, per constraint: the (canonical) values -> the model that
    /// holds them here, as the save leaves them. Read once per entity per session.
    private var uniqueOwners: [String: [[[SnapshotValue]: PersistentIdentifier]]] = [:]
    /// The model each model of an entity with unique constraints stands for here: itself, or
    /// the survivor it was merged into (``standing(for:)``). Emptied when the save records a merge.
    private var standIns: [PersistentIdentifier: PersistentIdentifier] = [:]

    init(destination: SyncStore, parts: [String: SyncedParts], resolver: any ConflictResolver,
         heldFresh: ModelDating.Fresh?) {
        self.destination = destination
        self.parts = parts
        self.resolver = resolver
        self.heldFresh = heldFresh
    }

    /// Merges one incoming model into the save.
    mutating func apply(_ incoming: DatedModel, id: PersistentIdentifier) throws {
        guard let parts = parts[id.entityName] else { return }
        // A replica that had not seen a merge when it saved can still name the model merged away.
        let incoming = try redirectingReferences(of: incoming, parts: parts)
        let heldRow = try save.isDeleting(id) ? nil : save.pendingRow(id) ?? destination.row(id)
        let record = try clocks(of: id)
        received.append((id, incoming.clocks))
        // A model merged into another on a unique key: its later changes go to the survivor.
        if let survivor = try survivor(named: record?.mergedInto, of: id), incoming.values != nil {
            try apply(redirected(incoming, to: survivor), id: survivor)
            return
        }
        let held = ModelDating.date(heldRow, record: record, parts: parts, fresh: heldFresh)
        if incoming.values == nil, let survivor = try survivor(named: incoming.clocks.mergedInto, of: id), let held, let heldRow {
            // Deleted by a unique-key merge elsewhere: what is held of it joins the survivor first.
            remove(id, parts: parts, row: heldRow, clocks: incoming.clocks)
            try apply(redirected(DatedModel(values: heldRow, clocks: held.clocks), to: survivor), id: survivor)
            try redirectReferences(to: id, survivor: survivor)
            return
        }
        let outcome = Merge.merge(held: held.map { DatedModel(values: heldRow, clocks: $0.clocks) }, incoming: incoming,
                                  id: id, parts: parts, resolver: resolver)
        let after = resultingRow(outcome, heldRow: heldRow)
        if let after, try bringInMovedHolders(of: id, values: after, parts: parts) {
            // What is held here changed (a holder merged away may have joined `id`): merge again.
            try apply(incoming, id: id)
            return
        }
        if let after, case let owners = try collisions(of: id, values: after, parts: parts), let other = owners.first {
            try mergeOnUniqueKey(id, values: after, clocks: outcome.clocks, heldRow: heldRow, with: other.owner,
                                 constraint: parts.entity.uniqueConstraints[other.constraint], parts: parts)
            return
        }
        try write(outcome, id: id, parts: parts, heldRow: heldRow, record: record)
    }

    /// The clocks held for a model: as this save leaves them, or as stored.
    private func clocks(of id: PersistentIdentifier) throws -> ModelClocks? {
        if case .string(let text)? = save.pendingRow(SyncStateRows.clockRecordID(id))?["clocks"] { return try ModelClocks.decoded(text) }
        return try SyncStateRows.clocks(of: id, in: destination)
    }

    /// Writes a merge's outcome into the save.
    private mutating func write(_ outcome: MergeOutcome, id: PersistentIdentifier, parts: SyncedParts,
                                 heldRow: [String: SnapshotValue]?, record: ModelClocks?) throws {
        switch outcome.action {
        case .none:
            break
        case .insert(let values):
            save.insert(id, values)
            keepInStep(parts, id: id, before: heldRow, after: values)
        case .update(let values):
            let stored = heldRow ?? [:]
            save.update(id, stored: stored, set: values)
            keepInStep(parts, id: id, before: stored, after: stored.merging(values) { $1 })
        case .delete:
            save.delete(id)
            keepInStep(parts, id: id, before: heldRow, after: nil)
        }
        for (name, change) in outcome.memberChanges.sorted(by: { $0.key < $1.key }) {
            save.changeMembers(id, stored: heldRow ?? [:], relationship: name, change)
        }
        if outcome.action != .none || !outcome.memberChanges.isEmpty { appliedChanges += 1 }
        if outcome.clocks != record { try SyncStateRows.write(outcome.clocks, of: id, into: &save) }
        report(outcome.resolutions)
        // The news of a merge made elsewhere, for a model not held here (or held deleted).
        if outcome.clocks.mergedInto != record?.mergedInto, let survivor = try survivor(named: outcome.clocks.mergedInto, of: id) {
            try redirectReferences(to: id, survivor: survivor)
        }
    }

    private mutating func report(_ decided: [(conflict: SyncConflict, resolution: SyncConflict.Resolution, incomingWon: Bool)]) {
        resolutions += decided.map {
            SyncResolution(conflict: $0.conflict, resolution: $0.resolution, incomingWon: $0.incomingWon,
                           storeIdentifier: destination.identifier)
        }
    }

    /// The row a merge leaves, `nil` when it leaves none.
    private func resultingRow(_ outcome: MergeOutcome, heldRow: [String: SnapshotValue]?) -> [String: SnapshotValue]? {
        var row: [String: SnapshotValue]?
        switch outcome.action {
        case .none: row = heldRow
        case .insert(let values): row = values
        case .update(let values): row = (heldRow ?? [:]).merging(values) { $1 }
        case .delete: row = nil
        }
        guard var row else { return nil }
        for (name, change) in outcome.memberChanges { row[name] = change.apply(to: row[name]) }
        return row
    }

    // MARK: Unique keys

    /// Merges `id` (whose row would be `values`, dated `clocks`) with `other`, which holds the same
    /// values of a unique constraint here: the smaller primary key survives with the values of
    /// both merged by clock; the other is deleted, its record naming the survivor.
    private mutating func mergeOnUniqueKey(_ id: PersistentIdentifier, values: [String: SnapshotValue], clocks: ModelClocks,
                                           heldRow: [String: SnapshotValue]?, with other: PersistentIdentifier,
                                           constraint: [String], parts: SyncedParts) throws {
        let otherRow = try save.pendingRow(other) ?? destination.row(other)
        let otherRecord = try self.clocks(of: other)
        guard let otherRow, let otherDated = ModelDating.date(otherRow, record: otherRecord, parts: parts, fresh: heldFresh) else { return }
        let incoming = DatedModel(values: values, clocks: clocks)
        let held = DatedModel(values: otherRow, clocks: otherDated.clocks)
        let incomingSurvives = Self.sortKey(id) < Self.sortKey(other)
        let (survivor, survivorModel, loser, loserModel, loserRow) = incomingSurvives
            ? (id, incoming, other, held, Optional(otherRow)) : (other, held, id, incoming, heldRow)
        mergedUniqueKeys = true
        // The loser goes first, so that the survivor's values no longer collide with it.
        // Dated as the loser's latest part: it deletes the loser as it was, and later changes of
        // it are redirected to the survivor rather than lost to the deletion.
        let earliest = HybridLogicalTimestamp(milliseconds: 0, counter: 0, replica: "")
        let deletedAt = max(loserModel.clocks.latest ?? earliest, loserModel.clocks.deleted ?? earliest)
        var tombstone = loserModel.clocks
        tombstone.deleted = deletedAt
        tombstone.mergedInto = ValueDigest.canonicalJSON(survivor.primaryKey)
        if let loserRow { remove(loser, parts: parts, row: loserRow, clocks: tombstone) } else {
            try SyncStateRows.write(tombstone, of: loser, into: &save)
        }
        // The survivor as held here (or as it arrives), with the loser's values merged in by clock.
        let survivorHeldRow = incomingSurvives ? heldRow : otherRow
        var merged = Merge.merge(held: survivorModel, incoming: redirected(loserModel, to: survivor), id: survivor, parts: parts,
                                 resolver: LastWriterWins())
        merged.resolutions = []
        var final = resultingRow(merged, heldRow: survivorModel.values) ?? [:]
        final["id"] = survivor.primaryKey
        let survivorRecord = incomingSurvives ? nil : otherRecord
        if let survivorHeldRow {
            let changed = final.filter { (survivorHeldRow[$0.key] ?? .null) != $0.value }
            save.update(survivor, stored: survivorHeldRow, set: changed)
            keepInStep(parts, id: survivor, before: survivorHeldRow, after: final)
        } else {
            save.insert(survivor, final)
            keepInStep(parts, id: survivor, before: nil, after: final)
        }
        if merged.clocks != survivorRecord { try SyncStateRows.write(merged.clocks, of: survivor, into: &save) }
        appliedChanges += 1
        let conflict = SyncConflict(identifier: survivor, kind: .uniqueKey(constraint), heldValue: nil,
                                    heldClock: held.clocks.latest ?? deletedAt, incomingValue: nil,
                                    incomingClock: clocks.latest ?? deletedAt)
        report([(conflict, .keepLatest, incomingSurvives)])
        try redirectReferences(to: loser, survivor: survivor)
    }

    /// Brings into the save, from the source, each model that holds one of the unique values of
    /// `values` (the row `id` will leave) here but not on the source (it changed the value, or was
    /// deleted, in a source transaction after the one being applied): its source state belongs in
    /// the save too. A holder the source does not know, or that holds the value there too, is a
    /// real collision of two replicas, which the caller merges.
    /// - Returns: whether it brought any model in.
    private mutating func bringInMovedHolders(of id: PersistentIdentifier, values: [String: SnapshotValue],
                                              parts: SyncedParts) throws -> Bool {
        guard let source else { return false }
        var brought = false
        merging[id] = values
        defer { merging[id] = nil }
        for (holder, constraint) in try collisions(of: id, values: values, parts: parts) where !broughtIn.contains(holder) {
            guard let moved = try source.model(holder, parts: parts),
                  moved.values.flatMap({ parts.entity.uniqueKey(constraint, in: $0)?.map(\.canonical) })
                    != parts.entity.uniqueKey(constraint, in: values)?.map(\.canonical) else { continue }
            broughtIn.insert(holder)
            brought = true
            try apply(moved, id: holder)
        }
        return brought
    }

    /// Deletes a held row (the loser of a unique-key merge, or a model merged away elsewhere)
    /// and records its tombstone.
    private mutating func remove(_ id: PersistentIdentifier, parts: SyncedParts, row: [String: SnapshotValue], clocks: ModelClocks) {
        save.delete(id)
        keepInStep(parts, id: id, before: row, after: nil)
        // Writing a record cannot fail but for encoding, which a tombstone always passes.
        try? SyncStateRows.write(clocks, of: id, into: &save)
        appliedChanges += 1
    }

    /// The models other than `id` that hold the values `values` gives a unique constraint (its
    /// index in the entity's constraints), as the save leaves them.
    private mutating func collisions(of id: PersistentIdentifier, values: [String: SnapshotValue],
                                     parts: SyncedParts) throws -> [(owner: PersistentIdentifier, constraint: Int)] {
        let entity = parts.entity
        guard !entity.uniqueConstraints.isEmpty else { return [] }
        if uniqueOwners[entity.name] == nil {
            var owners = Array(repeating: [[SnapshotValue]: PersistentIdentifier](), count: entity.uniqueConstraints.count)
            for (owner, row) in try destination.rows(of: entity.name) {
                for constraint in owners.indices {
                    if let key = entity.uniqueKey(constraint, in: row) { owners[constraint][key.map(\.canonical)] = owner }
                }
            }
            uniqueOwners[entity.name] = owners
        }
        var found: [(PersistentIdentifier, Int)] = []
        for constraint in entity.uniqueConstraints.indices {
            guard let key = entity.uniqueKey(constraint, in: values),
                  let owner = uniqueOwners[entity.name]?[constraint][key.map(\.canonical)], owner != id,
                  let ownerRow = try merging[owner] ?? (save.isDeleting(owner) ? nil : save.pendingRow(owner) ?? destination.row(owner)),
                  entity.uniqueKey(constraint, in: ownerRow)?.map(\.canonical) == key.map(\.canonical) else { continue }
            found.append((owner, constraint))
        }
        return found
    }

    /// Keeps the unique-key owners in step with a row the save changes.
    private mutating func trackUniqueOwners(_ id: PersistentIdentifier, entity: Schema.Entity, after: [String: SnapshotValue]?) {
        guard var owners = uniqueOwners[entity.name] else { return }
        for constraint in owners.indices {
            if let key = after.flatMap({ entity.uniqueKey(constraint, in: $0) }) { owners[constraint][key.map(\.canonical)] = id }
        }
        uniqueOwners[entity.name] = owners
    }

    /// The order of survival: the smaller primary key (canonical JSON) survives.
    static func sortKey(_ id: PersistentIdentifier) -> String { ValueDigest.canonicalJSON(id.primaryKey) }

    private func survivor(named key: String?, of id: PersistentIdentifier) throws -> PersistentIdentifier? {
        guard let key else { return nil }
        let survivor = PersistentIdentifier(entityName: id.entityName, primaryKey: try ValueDigest.value(fromCanonicalJSON: key))
        return survivor == id ? nil : survivor
    }

    /// A model's values and clocks as if they were `survivor`'s.
    private func redirected(_ model: DatedModel, to survivor: PersistentIdentifier) -> DatedModel {
        var model = model
        model.values?["id"] = survivor.primaryKey
        model.clocks.mergedInto = nil
        model.clocks.deleted = nil
        return model
    }

    // MARK: References to a model merged away

    /// Points every reference held here to `loser`, merged into `survivor` on a unique key, at
    /// `survivor` instead, in the save: to-one values and to-many members, their clocks kept (it
    /// is the same choice, by the survivor's name; a digest that dated the old name dates the new
    /// one), so every replica that learns of the merge makes the same change without dating it.
    /// A to-many that follows a to-one is kept in step with it. References that arrive later are
    /// redirected as they arrive (``redirectingReferences(of:parts:)``).
    /// - Complexity: reads every row of each entity with a relationship to the loser's entity
    ///   (a merge is rare; the save would otherwise leave references to a deleted model).
    private mutating func redirectReferences(to loser: PersistentIdentifier, survivor: PersistentIdentifier) throws {
        standIns = [:]
        let fromKey = ValueDigest.canonicalJSON(loser.primaryKey), toKey = ValueDigest.canonicalJSON(survivor.primaryKey)
        for (entityName, referring) in parts.sorted(by: { $0.key < $1.key }) {
            let toOne = referring.valueNames.filter { name in
                referring.entity.relationships.contains { $0.name == name && $0.destination == loser.entityName }
            }
            let toMany = referring.memberNames.filter { name in
                referring.entity.relationships.contains { $0.name == name && $0.destination == loser.entityName }
            }
            guard !toOne.isEmpty || !toMany.isEmpty else { continue }
            let stored = try destination.rows(of: entityName)
            let ids = Set(stored.keys).union(save.insertedOrder.filter { $0.entityName == entityName })
            for id in ids.sorted(by: { $0.description < $1.description }) where !save.isDeleting(id) {
                guard let row = save.pendingRow(id) ?? stored[id] else { continue }
                let set = Dictionary(uniqueKeysWithValues: toOne.filter { row[$0] == loser.primaryKey }.map { ($0, survivor.primaryKey) })
                let lists = toMany.filter { ModelDating.members(row[$0]).contains(loser.primaryKey) }
                guard !set.isEmpty || !lists.isEmpty else { continue }
                save.update(id, stored: row, set: set)
                keepInStep(referring, id: id, before: row, after: row.merging(set) { $1 })
                for name in lists {
                    let added = ModelDating.members(row[name]).contains(survivor.primaryKey) ? [] : [survivor.primaryKey]
                    save.changeMembers(id, stored: row, relationship: name, ToManyChange(added: added, removed: [loser.primaryKey]))
                }
                if let record = try clocks(of: id) {
                    var clocks = record
                    for name in set.keys where clocks.values[name]?.digest == ValueDigest.of(loser.primaryKey) {
                        clocks.values[name]?.digest = ValueDigest.of(survivor.primaryKey)
                    }
                    for name in lists { clocks.members[name] = Self.moving(fromKey, to: toKey, in: clocks.members[name]) }
                    if clocks != record { try SyncStateRows.write(clocks, of: id, into: &save) }
                }
                appliedChanges += 1
            }
        }
    }

    /// `model` with each reference to a model merged away here naming the model it stands for
    /// (``standing(for:)``), with the clocks of those values and members.
    private mutating func redirectingReferences(of model: DatedModel, parts: SyncedParts) throws -> DatedModel {
        guard var values = model.values else { return model }
        var clocks = model.clocks
        for relationship in parts.entity.relationships where self.parts[relationship.destination]?.entity.uniqueConstraints.isEmpty == false {
            let name = relationship.name
            func standIn(_ key: SnapshotValue) throws -> SnapshotValue {
                try standing(for: PersistentIdentifier(entityName: relationship.destination, primaryKey: key)).primaryKey
            }
            if parts.valueNames.contains(name), let key = values[name], key != .null {
                let target = try standIn(key)
                guard target != key else { continue }
                values[name] = target
                if clocks.values[name]?.digest == ValueDigest.of(key) { clocks.values[name]?.digest = ValueDigest.of(target) }
            } else if parts.memberNames.contains(name), values[name] != nil {
                var members: [SnapshotValue] = [], moved = false
                for key in ModelDating.members(values[name]) {
                    let target = try standIn(key)
                    if target != key {
                        moved = true
                        clocks.members[name] = Self.moving(ValueDigest.canonicalJSON(key), to: ValueDigest.canonicalJSON(target),
                                                           in: clocks.members[name])
                    }
                    if !members.contains(target) { members.append(target) }
                }
                if moved { values[name] = .array(members) }
            }
        }
        return DatedModel(values: values, clocks: clocks)
    }

    /// The model `id` stands for here: itself, or the survivor its clock record names as the save
    /// leaves it (following merges of the survivor in turn). Only models of entities with unique
    /// constraints are ever merged.
    private mutating func standing(for id: PersistentIdentifier) throws -> PersistentIdentifier {
        if let known = standIns[id] { return known }
        var current = id, seen: Set<PersistentIdentifier> = [id]
        while let next = try survivor(named: clocks(of: current)?.mergedInto, of: current), seen.insert(next).inserted { current = next }
        standIns[id] = current
        return current
    }

    /// Member clocks with the clock of member `from` moved to member `to` (the later clock when
    /// both have one).
    private static func moving(_ from: String, to: String, in members: [String: MemberClock]?) -> [String: MemberClock]? {
        guard var members, let moved = members.removeValue(forKey: from) else { return members }
        if let held = members[to], held.clock > moved.clock { return members }
        members[to] = moved
        return members
    }

    // MARK: Inverses

    /// For each to-one relationship of `id` whose inverse is a to-many that follows it: removes
    /// `id` from the members of the model it named before and adds it to the one it names after.
    /// A model not held here (not arrived yet) is skipped: it arrives with its members in step.
    /// A model new here (`before` is `nil`) arrives with the members its source lists; each of
    /// those held here whose to-one names another model is left out, since the to-one decides.
    private mutating func keepInStep(_ parts: SyncedParts, id: PersistentIdentifier,
                                     before: [String: SnapshotValue]?, after: [String: SnapshotValue]?) {
        trackUniqueOwners(id, entity: parts.entity, after: after)
        if before == nil, let after { leaveOutMembersNamingOthers(parts, id: id, row: after) }
        for (name, leader) in parts.leaders.sorted(by: { $0.key < $1.key }) {
            let old = before?[name] ?? .null, new = after?[name] ?? .null
            guard old != new else { continue }
            if old != .null { changeFollower(PersistentIdentifier(entityName: leader.destination, primaryKey: old), leader.inverse,
                                             ToManyChange(removed: [id.primaryKey])) }
            if new != .null { changeFollower(PersistentIdentifier(entityName: leader.destination, primaryKey: new), leader.inverse,
                                             ToManyChange(added: [id.primaryKey])) }
        }
    }

    /// Removes from the followers of a row new here the members held here whose to-one names
    /// another model: the source listed them as it held them, before this side's later move
    /// (which, already held here, will not arrive to correct the list).
    private mutating func leaveOutMembersNamingOthers(_ parts: SyncedParts, id: PersistentIdentifier, row: [String: SnapshotValue]) {
        for (name, inverse) in parts.followers.sorted(by: { $0.key < $1.key }) {
            guard let memberEntity = parts.entity.relationships.first(where: { $0.name == name })?.destination else { continue }
            let strays = ModelDating.members(row[name]).filter { member in
                let memberID = PersistentIdentifier(entityName: memberEntity, primaryKey: member)
                // A failed read keeps the member; the save's own reads report store failures.
                guard let held = save.pendingRow(memberID) ?? (try? destination.row(memberID)) ?? nil else { return false }
                return (held[inverse] ?? .null) != id.primaryKey
            }
            if !strays.isEmpty { save.changeMembers(id, stored: row, relationship: name, ToManyChange(removed: strays)) }
        }
    }

    private mutating func changeFollower(_ owner: PersistentIdentifier, _ relationship: String, _ change: ToManyChange) {
        // A failed read leaves the follower as it is; the save's own reads report store failures.
        guard let stored = save.pendingRow(owner) ?? (try? destination.row(owner)) ?? nil else { return }
        save.changeMembers(owner, stored: stored, relationship: relationship, change)
    }
}

/// The side a merge session's models come from.
struct SyncSource {
    let store: SyncStore
    /// Dates the source's changes that no round dated yet (`nil`: leave them out).
    let fresh: ModelDating.Fresh?

    /// A model of the source as it is now, dated by its clock record; `nil` when there is nothing
    /// to date (no row and no record, or an undated change and no `fresh`).
    func model(_ id: PersistentIdentifier, parts: SyncedParts) throws -> DatedModel? {
        let row = try store.row(id)
        let record = try SyncStateRows.clocks(of: id, in: store)
        return ModelDating.date(row, record: record, parts: parts, fresh: fresh).map { DatedModel(values: row, clocks: $0.clocks) }
    }
}
