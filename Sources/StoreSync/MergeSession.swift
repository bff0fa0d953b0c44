import DataStores

/// Merges incoming models into one destination store, collecting the one save that applies them
/// with their clock records, and keeping to-many relationships that follow a to-one inverse in
/// step with it (as a `ModelContext` does).
struct MergeSession {
    let destination: SyncStore
    let parts: [String: SyncedParts]
    let resolver: any ConflictResolver
    /// Dates the held side's changes that no round dated yet (`nil`: leave them undated).
    let heldFresh: (() -> HybridLogicalTimestamp)?
    var save = SyncSave()
    var resolutions: [SyncResolution] = []
    /// Models whose data the save changes.
    var appliedChanges = 0
    /// The clocks received, for the destination replica's clock.
    var received: [ModelClocks] = []

    init(destination: SyncStore, parts: [String: SyncedParts], resolver: any ConflictResolver,
         heldFresh: (() -> HybridLogicalTimestamp)?) {
        self.destination = destination
        self.parts = parts
        self.resolver = resolver
        self.heldFresh = heldFresh
    }

    /// Merges one incoming model into the save.
    mutating func apply(_ incoming: DatedModel, id: PersistentIdentifier) throws {
        guard let parts = parts[id.entityName] else { return }
        let heldRow = try destination.row(id)
        let record = try SyncStateRows.clocks(of: id, in: destination)
        let held = ModelDating.date(heldRow, record: record, parts: parts, fresh: heldFresh)
        let outcome = Merge.merge(held: held.map { DatedModel(values: heldRow, clocks: $0.clocks) }, incoming: incoming,
                                  id: id, parts: parts, resolver: resolver)
        received.append(incoming.clocks)
        switch outcome.action {
        case .none:
            break
        case .insert(let values):
            save.insert(id, values)
            keepFollowersInStep(parts, id: id, before: heldRow, after: values)
        case .update(let values):
            let stored = heldRow ?? [:]
            save.update(id, stored: stored, set: values)
            keepFollowersInStep(parts, id: id, before: stored, after: stored.merging(values) { $1 })
        case .delete:
            save.delete(id)
            keepFollowersInStep(parts, id: id, before: heldRow, after: nil)
        }
        for (name, change) in outcome.memberChanges.sorted(by: { $0.key < $1.key }) {
            save.changeMembers(id, stored: heldRow ?? [:], relationship: name, change)
        }
        if outcome.action != .none || !outcome.memberChanges.isEmpty { appliedChanges += 1 }
        if outcome.clocks != record { try SyncStateRows.write(outcome.clocks, of: id, into: &save) }
        resolutions += outcome.resolutions.map {
            SyncResolution(conflict: $0.conflict, resolution: $0.resolution, incomingWon: $0.incomingWon,
                           storeIdentifier: destination.identifier)
        }
    }

    /// For each to-one relationship of `id` whose inverse is a to-many that follows it: removes
    /// `id` from the members of the model it named before and adds it to the one it names after.
    /// A model not held here (not arrived yet) is skipped: it arrives with its members in step.
    private mutating func keepFollowersInStep(_ parts: SyncedParts, id: PersistentIdentifier,
                                              before: [String: SnapshotValue]?, after: [String: SnapshotValue]?) {
        for (name, leader) in parts.leaders.sorted(by: { $0.key < $1.key }) {
            let old = before?[name] ?? .null, new = after?[name] ?? .null
            guard old != new else { continue }
            if old != .null { changeFollower(PersistentIdentifier(entityName: leader.destination, primaryKey: old), leader.inverse,
                                             ToManyChange(removed: [id.primaryKey])) }
            if new != .null { changeFollower(PersistentIdentifier(entityName: leader.destination, primaryKey: new), leader.inverse,
                                             ToManyChange(added: [id.primaryKey])) }
        }
    }

    private mutating func changeFollower(_ owner: PersistentIdentifier, _ relationship: String, _ change: ToManyChange) {
        // A failed read leaves the follower as it is; the save's own reads report store failures.
        guard let stored = save.pendingRow(owner) ?? (try? destination.row(owner)) ?? nil else { return }
        save.changeMembers(owner, stored: stored, relationship: relationship, change)
    }
}
