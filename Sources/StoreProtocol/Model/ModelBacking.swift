import Observation

/// The per-instance state of an `@Model` instance: its observation registrar, which of its
/// persisted properties changed since a context last settled it, and the context tracking it.
///
/// The `@Model` macro gives each instance one (`let _$backingData = ModelBacking()`) and makes
/// each persisted property's accessors call ``access(_:keyPath:)`` and
/// `withMutation(of:keyPath:at:_:)` (or ``willModify(_:keyPath:at:)`` and
/// `didModify(_:keyPath:at:)` around an in-place `_modify`). Public for the expansion and for code
/// generators; an app does not call it.
///
/// A set costs what an `@Observable` set costs plus one bit set in a word and one branch: the
/// first change since the model was settled also tells the tracking context (once), so that a save
/// visits only the models that changed.
///
/// Not `Sendable`: a model and its backing belong to the context (and isolation) that holds them.
public final class ModelBacking {
    /// The registrar the accessors report to, as an `@Observable` class's does.
    @usableFromInline let registrar = ObservationRegistrar()
    // Unchecked exclusivity: each access is a short non-reentrant read or write (no callback runs
    // during one), and the dynamic check cost a set about a third more than an @Observable set
    // (callgrind: 999 against 741 instructions per set and get; 778 without it).
    /// The persisted properties set since the model was last settled, by index in the model's
    /// `SchemaMetadata(properties:)`.
    @exclusivity(unchecked) @usableFromInline var changedProperties = PropertyBitSet()
    /// Whether the tracking context has been told of a change since it last settled the model.
    @exclusivity(unchecked) @usableFromInline var reportedChange = false
    /// Where the context tracking this instance logs it as changed: told of the first change
    /// after each settle, under ``trackedIdentifier``. Also who that context is (``ModelOwner``).
    weak var tracker: TouchLog?
    /// Set when a save deleted the model from its store and no context has tracked it since: no
    /// relationship may store it again.
    var deletion: ModelDeletion?
    /// The identifier the tracking context holds the model under.
    var trackedIdentifier: PersistentIdentifier?
    /// Models whose to-one relationship was set to this model (held weakly: they hold this
    /// model): what a context inserting this model looks at for new models that reach it only
    /// through their own to-one. A model may have been set to another since; the context checks.
    var referrers: [ObjectIdentifier: WeakModel] = [:]
    /// While no context tracks the model: how many members each to-many relationship (by
    /// property index) held when its setter last looked for a member a context holds
    /// (``joinContextOfHeldMember(_:_:at:appendedOnly:)``), and which was the last, so that
    /// appending looks at the appended members only.
    var untrackedMembersSeen: [Int: (count: Int, last: ObjectIdentifier)] = [:]

    /// A backing with no changes, tracked by no context.
    public init() {}

    /// Reports a read of `keyPath` to observation (`withObservationTracking`).
    @inlinable
    public func access<M: PersistentModel & Observable, V>(_ model: M, keyPath: KeyPath<M, V>) {
        registrar.access(model, keyPath: keyPath)
    }

    /// Runs `mutation` (the set of the property at `keyPath`, index `index`) as an observed
    /// mutation, and records the property as changed.
    @inlinable
    public func withMutation<M: PersistentModel & Observable, V, T>(
        of model: M, keyPath: KeyPath<M, V>, at index: Int, _ mutation: () throws -> T
    ) rethrows -> T {
        markChanged(index)
        return try registrar.withMutation(of: model, keyPath: keyPath, mutation)
    }

    /// The start of an in-place modification (`trip.tags.append(x)`) of the property at
    /// `keyPath`: observers' `willSet` side, and the property recorded as changed.
    @inlinable
    public func willModify<M: PersistentModel & Observable, V>(_ model: M, keyPath: KeyPath<M, V>, at index: Int) {
        markChanged(index)
        registrar.willSet(model, keyPath: keyPath)
    }

    /// The end of an in-place modification: observers' `didSet` side.
    @inlinable
    public func didModify<M: PersistentModel & Observable, V>(_ model: M, keyPath: KeyPath<M, V>, at index: Int) {
        registrar.didSet(model, keyPath: keyPath)
    }

    /// A to-one relationship set: as `withMutation(of:keyPath:at:_:)`, and the related model's
    /// backing notes this model as one that refers to it, so that a context inserting the related
    /// model inserts this one too (`item.trip = trip; context.insert(trip)` saves `item`).
    @inlinable
    public func withMutation<M: PersistentModel & Observable, D: PersistentModel, T>(
        of model: M, keyPath: KeyPath<M, D?>, at index: Int, _ mutation: () throws -> T
    ) rethrows -> T {
        markChanged(index)
        let result = try registrar.withMutation(of: model, keyPath: keyPath, mutation)
        noteReferrer(model, keyPath: keyPath)
        return result
    }

    /// The end of an in-place modification of a to-one relationship: as
    /// `didModify(_:keyPath:at:)`, noting the referrer as a set does.
    @inlinable
    public func didModify<M: PersistentModel & Observable, D: PersistentModel>(_ model: M, keyPath: KeyPath<M, D?>, at index: Int) {
        registrar.didSet(model, keyPath: keyPath)
        noteReferrer(model, keyPath: keyPath)
    }

    /// Tells the model `model` now refers to through `keyPath` that `model` does, and inserts a
    /// new model into the context that tracks the other one, as SwiftData does: `item.folder =
    /// folder` with `folder` held by a context inserts `item` there at once (it is counted by
    /// ``ModelContext/hasChanges``, listed, fetched), and so does `item.folder = newFolder` with
    /// `item` held. A model deleted from its store by a save is not inserted again: the related
    /// model's context is told, and its next ``ModelContext/processPendingChanges()`` refuses it.
    @usableFromInline
    func noteReferrer<M: PersistentModel, D: PersistentModel>(_ model: M, keyPath: KeyPath<M, D?>) {
        guard let related = model[keyPath: keyPath] else { return }
        let destination = related.persistentBackingData
        guard destination !== self else { return }
        let key = ObjectIdentifier(model)
        let isNew = destination.referrers[key]?.model !== model
        destination.referrers[key] = WeakModel(model: model)
        if tracker == nil, let log = destination.tracker {
            if deletion == nil, let context = log.owningContext {
                context.insertNewlyRelated(model)
            } else if isNew, let identifier = destination.trackedIdentifier {
                log.appendReferred(identifier)
            }
        } else if let context = tracker?.owningContext, destination.isNewToEveryContext {
            context.insertNewlyRelated(related)
        }
    }

    /// A to-many relationship set whole: as `withMutation(of:keyPath:at:_:)`, and the members new
    /// to every context are inserted into the context that tracks this model, as SwiftData does
    /// (`folder.items = [a, b]`).
    @inlinable
    public func withMutation<M: PersistentModel & Observable, D: PersistentModel, T>(
        of model: M, keyPath: KeyPath<M, [D]>, at index: Int, _ mutation: () throws -> T
    ) rethrows -> T {
        markChanged(index)
        let result = try registrar.withMutation(of: model, keyPath: keyPath, mutation)
        membersChanged(model, model[keyPath: keyPath], at: index, appendedOnly: false)
        return result
    }

    /// The end of an in-place modification of a to-many relationship (`folder.items.append(x)`):
    /// as `didModify(_:keyPath:at:)`, and the members appended that are new to every context are
    /// inserted into the context that tracks this model; a model no context tracks that takes a
    /// member a context holds is inserted into that context.
    @inlinable
    public func didModify<M: PersistentModel & Observable, D: PersistentModel>(_ model: M, keyPath: KeyPath<M, [D]>, at index: Int) {
        registrar.didSet(model, keyPath: keyPath)
        membersChanged(model, model[keyPath: keyPath], at: index, appendedOnly: true)
    }

    /// An optional to-many relationship (`[Stop]?`) set whole: as the non-optional one.
    @inlinable
    public func withMutation<M: PersistentModel & Observable, D: PersistentModel, T>(
        of model: M, keyPath: KeyPath<M, [D]?>, at index: Int, _ mutation: () throws -> T
    ) rethrows -> T {
        markChanged(index)
        let result = try registrar.withMutation(of: model, keyPath: keyPath, mutation)
        if let members = model[keyPath: keyPath] { membersChanged(model, members, at: index, appendedOnly: false) }
        return result
    }

    /// The end of an in-place modification of an optional to-many relationship: as the non-optional one.
    @inlinable
    public func didModify<M: PersistentModel & Observable, D: PersistentModel>(_ model: M, keyPath: KeyPath<M, [D]?>, at index: Int) {
        registrar.didSet(model, keyPath: keyPath)
        if let members = model[keyPath: keyPath] { membersChanged(model, members, at: index, appendedOnly: true) }
    }

    /// What a change of a to-many relationship (property index `index`, now holding `members`)
    /// brings into a context: the new members into the context tracking this model
    /// (``insertNewMembers(_:appendedOnly:)``), or, when no context tracks it, this model into
    /// the context of a member (``joinContextOfHeldMember(_:_:at:appendedOnly:)``). `appendedOnly`
    /// after an in-place modification, which may look at the members at the end only.
    @usableFromInline
    func membersChanged<M: PersistentModel, D: PersistentModel>(_ model: M, _ members: [D], at index: Int, appendedOnly: Bool) {
        if isTracked {
            insertNewMembers(members, appendedOnly: appendedOnly)
        } else {
            joinContextOfHeldMember(model, members, at: index, appendedOnly: appendedOnly)
        }
    }

    /// Inserts the members new to every context into the context tracking this model. All of them
    /// for a relationship set whole; after an in-place modification only those at the end, back to
    /// the first member a context tracks (what `append` and `append(contentsOf:)` add), so that
    /// appending costs O(1) and not the relationship's length: a new model put elsewhere in place
    /// (`insert(_:at:)`) is inserted by the next ``ModelContext/processPendingChanges()`` (or save).
    /// - Complexity: O(*m*) for *m* members looked at.
    @usableFromInline
    func insertNewMembers<D: PersistentModel>(_ members: [D], appendedOnly: Bool) {
        guard let context = tracker?.owningContext else { return }
        for member in members.reversed() {
            let backing = member.persistentBackingData
            if backing.isNewToEveryContext {
                context.insertNewlyRelated(member)
            } else if appendedOnly && backing.tracker != nil {
                break
            }
        }
    }

    /// Inserts `model`, which no context tracks, into the context that holds one of the `members`
    /// its to-many relationship (property index `index`) came to hold, as SwiftData does
    /// (`newFolder.items.append(item)` with `item` held): the context's next save stores it and
    /// sets the inverse (`item.folder` is `newFolder`, and the former folder no longer holds it).
    /// Without this, the change would be saved by no context and lost.
    ///
    /// Each member new to every context records `model` among its referrers, so that a context
    /// inserting the member later inserts `model` with it (`newFolder.items.append(item)`, then
    /// `context.insert(item)`). The first held member (in the relationship's order) decides. A member of another context
    /// is then refused by that context's save (``ModelContextError/Code/modelOfAnotherContext``),
    /// as for any model, since a model belongs to one context. Nothing is done for a model deleted
    /// from its store by a save, or when the member's context is gone. An explicit insert into
    /// another context before a save or a pass takes the model there (``ModelContext/insert(_:)``),
    /// whose save then refuses the member of the other context (or container).
    ///
    /// After an in-place modification only the members past those looked at last time are looked
    /// at when the relationship grew with the last member looked at still in its place (an
    /// append: it costs O(1) amortized); all of them otherwise (`insert(_:at:)` before the end,
    /// a removal, a replacement, a sort), so that no held member is missed.
    /// - Complexity: O(*m*) for *m* members looked at; nothing for an empty relationship.
    @usableFromInline
    func joinContextOfHeldMember<M: PersistentModel, D: PersistentModel>(_ model: M, _ members: [D], at index: Int, appendedOnly: Bool) {
        guard deletion == nil, let last = members.last else { return }
        var start = 0
        if appendedOnly, let seen = untrackedMembersSeen[index], members.count > seen.count,
           seen.count > 0, ObjectIdentifier(members[seen.count - 1]) == seen.last {
            start = seen.count
        }
        untrackedMembersSeen[index] = (members.count, ObjectIdentifier(last))
        var heldBy: ModelContext?
        for member in members[start...] {
            let backing = member.persistentBackingData
            if let context = backing.tracker?.owningContext {
                if heldBy == nil { heldBy = context }
            } else if backing.isNewToEveryContext {
                // A new member: a context that inserts it later (`context.insert(item)`) finds
                // this owner through its referrers, as for a to-one (`newReferrers(of:)`);
                // nothing else leads to the owner before the save sets the inverse.
                backing.referrers[ObjectIdentifier(model)] = WeakModel(model: model)
            }
        }
        heldBy?.insertNewlyRelated(model, asOwnerOfHeldModel: true)
    }

    /// Whether a context tracks the model.
    @usableFromInline var isTracked: Bool { tracker != nil }

    /// Whether no context tracks the model and no save deleted it from a store.
    var isNewToEveryContext: Bool { tracker == nil && deletion == nil }

    /// Records the property at `index` as changed; the first change since the model was settled
    /// is reported to the tracking context. A negative index (an `@Attribute(.ephemeral)`
    /// property: observed, never stored) is no change to save.
    /// - Complexity: O(1) (amortized for indices from 64 on).
    @inlinable
    public func markChanged(_ index: Int) {
        guard index >= 0 else { return }
        changedProperties.insert(index)
        if !reportedChange { reportFirstChange() }
    }

    @usableFromInline
    func reportFirstChange() {
        reportedChange = true
        if let tracker, let trackedIdentifier { tracker.append(trackedIdentifier) }
    }

    /// Whether any persisted property was set since the model was last settled.
    public var hasChanges: Bool { !changedProperties.isEmpty }

    /// Whether the property at `index` was set since the model was last settled.
    public func isChanged(_ index: Int) -> Bool { changedProperties.contains(index) }

    /// Forgets the changes: the model's values are now what its context knows as stored.
    func settle() {
        changedProperties.removeAll()
        reportedChange = false
    }

    /// The changes since the last settle, forgotten here (``settle()``): what a save reads before
    /// it reads the model's values.
    func takeChanges() -> PropertyBitSet {
        defer { settle() }
        return changedProperties
    }

    /// Records `changes` again (a save that took them did not reach the store).
    func restoreChanges(_ changes: PropertyBitSet) {
        guard !changes.isEmpty else { return }
        changedProperties.formUnion(changes)
        if !reportedChange { reportFirstChange() }
    }

    /// Starts reporting changes to `log`, under `identifier`: the model is that context's.
    func track(by log: TouchLog, as identifier: PersistentIdentifier) {
        tracker = log
        trackedIdentifier = identifier
        deletion = nil
    }

    /// Stops reporting changes to `log`, if it is the one reported to; with `deleted`, records
    /// that the model was deleted from the store of `log`'s container.
    func stopTracking(by log: TouchLog, deleted: Bool = false) {
        guard tracker === log else { return }
        tracker = nil
        trackedIdentifier = nil
        untrackedMembersSeen = [:]
        if deleted { deletion = ModelDeletion(container: log.container) }
    }
}

/// A model held weakly.
struct WeakModel {
    weak var model: (any PersistentModel)?
}

/// A set of small non-negative integers: one machine word for the first 64, words beyond.
@usableFromInline
struct PropertyBitSet {
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var high: [UInt64] = []

    @inlinable init() {}

    @inlinable
    mutating func insert(_ index: Int) {
        if index < 64 {
            low |= 1 &<< UInt64(truncatingIfNeeded: index)
        } else {
            insertHigh(index)
        }
    }

    @usableFromInline
    mutating func insertHigh(_ index: Int) {
        let word = index / 64 - 1
        if high.count <= word { high.append(contentsOf: repeatElement(0, count: word + 1 - high.count)) }
        high[word] |= 1 &<< UInt64(index % 64)
    }

    func contains(_ index: Int) -> Bool {
        guard index >= 0 else { return false }
        if index < 64 { return low & (1 &<< UInt64(index)) != 0 }
        let word = index / 64 - 1
        return word < high.count && high[word] & (1 &<< UInt64(index % 64)) != 0
    }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    mutating func formUnion(_ other: PropertyBitSet) {
        low |= other.low
        if high.count < other.high.count { high.append(contentsOf: repeatElement(0, count: other.high.count - high.count)) }
        for (word, bits) in other.high.enumerated() { high[word] |= bits }
    }

    mutating func removeAll() {
        low = 0
        high.removeAll()
    }

    /// The members, ascending.
    var members: [Int] {
        var result: [Int] = []
        for (offset, word) in ([low] + high).enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 &<< UInt64(bit)) != 0 { result.append(offset * 64 + bit) }
        }
        return result
    }
}
