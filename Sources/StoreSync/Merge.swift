import DataStores

/// One side's view of a model, dated (``ModelDating``).
struct DatedModel: Sendable {
    /// The stored values; `nil` when the side holds no row.
    var values: [String: SnapshotValue]?
    /// The clocks of those values (or of the deletion).
    var clocks: ModelClocks
}

/// What a merge decided for the held side.
struct MergeOutcome: Sendable {
    enum Action: Sendable, Equatable {
        /// The held side is right as it is.
        case none
        /// Insert this row (the model is new here, or comes back).
        case insert([String: SnapshotValue])
        /// Set these values of the held row.
        case update([String: SnapshotValue])
        /// Delete the held row.
        case delete
    }

    var action: Action = .none
    /// Member changes of to-many relationships of the held row.
    var memberChanges: [String: ToManyChange] = [:]
    /// The held side's clocks after the merge.
    var clocks: ModelClocks
    /// Each conflict decided, with whether the incoming side won.
    var resolutions: [(conflict: SyncConflict, resolution: SyncConflict.Resolution, incomingWon: Bool)] = []
}

/// The merge rules, as one pure function: a held model and an incoming one, each with its clocks,
/// give the held side's new state.
///
/// - Values (attributes, to-one relationships): per name, the later clock wins. When both sides
///   wrote the name without seeing the other's value (neither clock is the other's base) and the
///   values differ, the resolver decides (``LastWriterWins``: the later clock).
/// - To-many relationships: per member, the later clock of its addition or removal wins.
/// - Deletion: an incoming deletion later than every held part deletes; a held part later than it
///   is a delete-versus-update conflict for the resolver (``LastWriterWins``: the deletion wins by
///   default). A held deletion drops incoming changes older than it; an incoming change later than
///   it is the same conflict; an incoming model whose life began after the deletion (a re-insert)
///   comes back.
enum Merge {
    static func merge(held: DatedModel?, incoming: DatedModel, id: PersistentIdentifier, parts: SyncedParts,
                      resolver: any ConflictResolver) -> MergeOutcome {
        guard let held else {
            // Nothing known here: take the incoming side as it is.
            return MergeOutcome(action: incoming.values.map { .insert($0) } ?? .none, clocks: incoming.clocks)
        }
        if incoming.values == nil {
            return mergeDeletion(held: held, incoming: incoming, id: id, resolver: resolver)
        }
        guard let heldValues = held.values else {
            return mergeIntoDeleted(held: held, incoming: incoming, id: id, resolver: resolver)
        }
        return mergeValues(held: held, heldValues: heldValues, incoming: incoming, id: id, parts: parts, resolver: resolver)
    }

    /// An incoming deletion.
    private static func mergeDeletion(held: DatedModel, incoming: DatedModel, id: PersistentIdentifier,
                                      resolver: any ConflictResolver) -> MergeOutcome {
        guard let deleted = incoming.clocks.deleted else { return MergeOutcome(clocks: held.clocks) }
        var outcome = MergeOutcome(clocks: held.clocks)
        outcome.clocks.mergedInto = held.clocks.mergedInto ?? incoming.clocks.mergedInto
        guard held.values != nil else {
            // Deleted on both sides: one tombstone, the later.
            if let heldDeleted = held.clocks.deleted, heldDeleted >= deleted { return outcome }
            outcome.clocks.deleted = deleted
            return outcome
        }
        // A held life that began after the deletion is another model: the deletion does not touch it.
        if let born = held.clocks.incarnation, born > deleted { return outcome }
        var deletes = true
        if held.clocks.anyLater(than: deleted), let heldLatest = held.clocks.latest {
            let conflict = SyncConflict(identifier: id, kind: .deleteVersusUpdate, heldValue: held.values.map(SnapshotValue.object), heldClock: heldLatest,
                                        incomingValue: nil, incomingClock: deleted, heldIsDeletion: false)
            let resolution = resolver.resolve(conflict)
            deletes = resolution == .takeIncoming   // keepLatest: the held update is later
            outcome.resolutions.append((conflict, resolution, deletes))
        }
        guard deletes else { return outcome }
        outcome.action = .delete
        outcome.clocks.deleted = deleted
        return outcome
    }

    /// An incoming live model against a held deletion.
    private static func mergeIntoDeleted(held: DatedModel, incoming: DatedModel, id: PersistentIdentifier,
                                         resolver: any ConflictResolver) -> MergeOutcome {
        var outcome = MergeOutcome(clocks: held.clocks)
        guard let deleted = held.clocks.deleted else {
            // Neither a row nor a deletion held (a record left by an unfinished insert): take it.
            return MergeOutcome(action: incoming.values.map { .insert($0) } ?? .none, clocks: incoming.clocks)
        }
        var revives = false
        if let born = incoming.clocks.incarnation, born > deleted {
            revives = true   // a re-insert after the deletion
        } else if incoming.clocks.anyLater(than: deleted), let incomingLatest = incoming.clocks.latest {
            let conflict = SyncConflict(identifier: id, kind: .deleteVersusUpdate, heldValue: nil, heldClock: deleted,
                                        incomingValue: incoming.values.map(SnapshotValue.object), incomingClock: incomingLatest, heldIsDeletion: true)
            let resolution = resolver.resolve(conflict)
            revives = resolution != .keepHeld   // keepLatest: the incoming update is later
            outcome.resolutions.append((conflict, resolution, revives))
        }
        guard revives, let values = incoming.values else { return outcome }
        outcome.action = .insert(values)
        outcome.clocks = incoming.clocks
        return outcome
    }

    /// Two live models: per value and per member.
    private static func mergeValues(held: DatedModel, heldValues: [String: SnapshotValue], incoming: DatedModel,
                                    id: PersistentIdentifier, parts: SyncedParts, resolver: any ConflictResolver) -> MergeOutcome {
        var outcome = MergeOutcome(clocks: held.clocks)
        let incomingValues = incoming.values ?? [:]
        if let born = incoming.clocks.incarnation, held.clocks.incarnation.map({ born > $0 }) ?? true {
            outcome.clocks.incarnation = born
        }
        var set: [String: SnapshotValue] = [:]
        for name in parts.valueNames {
            guard let theirs = incoming.clocks.values[name] else { continue }
            guard let ours = held.clocks.values[name] else {
                outcome.clocks.values[name] = theirs
                if (heldValues[name] ?? .null) != (incomingValues[name] ?? .null) { set[name] = incomingValues[name] ?? .null }
                continue
            }
            guard ours.clock != theirs.clock else { continue }
            var takesIncoming = theirs.clock > ours.clock
            let concurrent = ours.digest != theirs.digest && theirs.base != ours.clock && ours.base != theirs.clock
            if concurrent {
                let conflict = SyncConflict(identifier: id, kind: .attribute(name), heldValue: heldValues[name] ?? .null,
                                            heldClock: ours.clock, incomingValue: incomingValues[name] ?? .null,
                                            incomingClock: theirs.clock)
                let resolution = resolver.resolve(conflict)
                if resolution != .keepLatest { takesIncoming = resolution == .takeIncoming }
                outcome.resolutions.append((conflict, resolution, takesIncoming))
            }
            guard takesIncoming else { continue }
            outcome.clocks.values[name] = theirs
            if (heldValues[name] ?? .null) != (incomingValues[name] ?? .null) { set[name] = incomingValues[name] ?? .null }
        }
        for name in parts.memberNames {
            var members = held.clocks.members[name] ?? [:]
            var change = ToManyChange()
            for (key, theirs) in (incoming.clocks.members[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let ours = members[key]
                guard ours.map({ theirs.clock > $0.clock }) ?? true else { continue }
                members[key] = theirs
                guard (ours?.present ?? false) != theirs.present || ours == nil,
                      let member = try? ValueDigest.value(fromCanonicalJSON: key) else { continue }
                let isHeld = ModelDating.members(heldValues[name]).contains(member)
                if theirs.present, !isHeld { change.added.append(member) }
                if !theirs.present, isHeld { change.removed.append(member) }
            }
            outcome.clocks.members[name] = members
            if !change.added.isEmpty || !change.removed.isEmpty { outcome.memberChanges[name] = change }
        }
        if !set.isEmpty { outcome.action = .update(set) }
        return outcome
    }
}
