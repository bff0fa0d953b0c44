import Foundation

/// How a save changed the members of one to-many relationship of one model: the members the
/// saving context added and removed since it last saved or fetched the model, as the primary
/// keys a snapshot's `.array` holds.
///
/// A store applies it to the members it holds when it saves, rather than writing the context's
/// whole array, so that two contexts or processes that add or remove different members of one
/// relationship both keep their change (``apply(to:)``). A reorder alone changes no membership
/// and is no change: the stored order stays.
public struct ToManyChange: Sendable, Hashable {
    /// Members the saving context added, in the context's order.
    public var added: [SnapshotValue]
    /// Members the saving context removed.
    public var removed: [SnapshotValue]

    /// Makes a change from the members added and removed.
    public init(added: [SnapshotValue] = [], removed: [SnapshotValue] = []) {
        self.added = added
        self.removed = removed
    }

    /// The change from the members `baseline` to the members `current` (each an `.array` of
    /// primary keys; `nil`, `.null` or any other value counts as no members): those of `current`
    /// not in `baseline`, in `current`'s order, and those of `baseline` not in `current`.
    /// - Complexity: O(*b* + *c*) for *b* and *c* members.
    public init(from baseline: SnapshotValue?, to current: SnapshotValue?) {
        let before = Self.members(of: baseline), after = Self.members(of: current)
        let beforeSet = Set(before), afterSet = Set(after)
        self.init(added: after.filter { !beforeSet.contains($0) }, removed: before.filter { !afterSet.contains($0) })
    }

    /// The members `stored` holds after this change: its members without those ``removed``,
    /// in their stored order, then those ``added`` that it does not already hold, in their
    /// order. A member another save added or removed meanwhile stays added or removed.
    /// - Complexity: O(*s* + *a* + *r*) for *s* stored, *a* added and *r* removed members.
    public func apply(to stored: SnapshotValue?) -> SnapshotValue {
        let removedSet = Set(removed)
        var kept = Self.members(of: stored).filter { !removedSet.contains($0) }
        var present = Set(kept)
        for member in added where present.insert(member).inserted { kept.append(member) }
        return .array(kept)
    }

    /// The members a to-many value holds: its elements when it is an `.array`, none otherwise.
    private static func members(of value: SnapshotValue?) -> [SnapshotValue] {
        if case .array(let members)? = value { members } else { [] }
    }
}
