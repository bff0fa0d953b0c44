import DataStores

/// Decides a conflict between a change arriving from the other side and what a replica holds.
///
/// Called during a round, before the save that applies the outcome; it must be deterministic
/// (every replica decides the same conflict the same way) and must not touch the containers.
public protocol ConflictResolver: Sendable {
    /// The outcome of one conflict.
    func resolve(_ conflict: SyncConflict) -> SyncConflict.Resolution
}

/// Two changes of one model that neither replica saw before making its own.
public struct SyncConflict: Sendable {
    /// What the two changes disagree on.
    public enum Kind: Sendable, Equatable {
        /// Both set this attribute or relationship.
        case attribute(String)
        /// One side deleted the model, the other updated it.
        case deleteVersusUpdate
        /// Two models inserted on different replicas share the values of a unique constraint (its
        /// attribute names): the one with the smaller primary key survives, the other's values
        /// merge into it by clock, and it is deleted. Reported, never asked of a resolver.
        case uniqueKey([String])
    }

    /// The outcome a resolver picks.
    public enum Resolution: Sendable, Equatable {
        /// The value (or deletion) with the later clock.
        case keepLatest
        /// The value the replica holds.
        case keepHeld
        /// The value (or deletion) that arrives.
        case takeIncoming
    }

    /// The model the changes touch.
    public var identifier: PersistentIdentifier
    /// What the two changes disagree on.
    public var kind: Kind
    /// The value the replica holds (`nil` for a deleted model). For ``Kind/deleteVersusUpdate``
    /// on the side that holds the updated model: its values, an `.object` keyed by attribute and
    /// relationship name.
    public var heldValue: SnapshotValue?
    /// When the held value or deletion was written.
    public var heldClock: HybridLogicalTimestamp
    /// The value that arrives (`nil` for a deletion). For ``Kind/deleteVersusUpdate`` when the
    /// update arrives: the updated model's values, an `.object` keyed by attribute and
    /// relationship name.
    public var incomingValue: SnapshotValue?
    /// When the incoming value or deletion was written.
    public var incomingClock: HybridLogicalTimestamp
    /// Whether the held side is the deletion (for ``Kind/deleteVersusUpdate``).
    public var heldIsDeletion: Bool

    /// Makes a conflict from its parts, as given (a replicator makes them; a test of a resolver
    /// may too).
    public init(identifier: PersistentIdentifier, kind: Kind, heldValue: SnapshotValue?, heldClock: HybridLogicalTimestamp,
                incomingValue: SnapshotValue?, incomingClock: HybridLogicalTimestamp, heldIsDeletion: Bool = false) {
        self.identifier = identifier
        self.kind = kind
        self.heldValue = heldValue
        self.heldClock = heldClock
        self.incomingValue = incomingValue
        self.incomingClock = incomingClock
        self.heldIsDeletion = heldIsDeletion
    }
}

/// The default: per attribute, the later clock wins; a deletion wins over a concurrent update.
public struct LastWriterWins: ConflictResolver {
    /// Whether a deletion wins over an update that did not see it (`true`, the default), or the
    /// update brings the model back.
    public var deleteWins: Bool

    /// The default resolver; `deleteWins: false` lets a concurrent update bring a deleted model back.
    public init(deleteWins: Bool = true) { self.deleteWins = deleteWins }

    /// ``SyncConflict/Resolution/keepLatest`` for values and unique keys; for a deletion against
    /// an update, the deletion when ``deleteWins``, else the update.
    public func resolve(_ conflict: SyncConflict) -> SyncConflict.Resolution {
        switch conflict.kind {
        case .attribute, .uniqueKey:
            return .keepLatest
        case .deleteVersusUpdate:
            return deleteWins == conflict.heldIsDeletion ? .keepHeld : .takeIncoming
        }
    }
}

/// A conflict and how it was resolved, reported after the save that applied it.
public struct SyncResolution: Sendable {
    /// The conflict decided.
    public var conflict: SyncConflict
    /// What the resolver picked (``SyncConflict/Resolution/keepLatest`` for unique keys).
    public var resolution: SyncConflict.Resolution
    /// Whether the incoming side's value (or deletion) is what the replica holds now.
    public var incomingWon: Bool
    /// The store the resolution was saved in (`DataStore.identifier`).
    public var storeIdentifier: String

    /// Makes a record of a resolution from its parts, as given.
    public init(conflict: SyncConflict, resolution: SyncConflict.Resolution, incomingWon: Bool, storeIdentifier: String) {
        self.conflict = conflict
        self.resolution = resolution
        self.incomingWon = incomingWon
        self.storeIdentifier = storeIdentifier
    }
}
