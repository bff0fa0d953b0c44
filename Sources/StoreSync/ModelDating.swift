import DataStores

/// Dates a row as it is now against the clocks a replica recorded for it: what stamping does to
/// the local side's own saves, and how a replicator reads either side before a merge.
enum ModelDating {
    /// Gives a clock to a change no round dated yet, knowing the model's record (`nil`: none):
    /// a replica's next reading, or, for a remote model an app changed directly, a reading just
    /// after what the record held.
    typealias Fresh = (ModelClocks?) -> HybridLogicalTimestamp

    /// A part of a model a change dates: its life (an insert or a deletion), or one value or
    /// to-many relationship, by name.
    enum Part: Hashable, Sendable {
        case life
        case named(String)
    }

    /// A reading just after `record`'s latest (by `replica`), and no earlier than `floor`: how a
    /// change an app saved on the remote directly is dated, since it came after what the remote
    /// held.
    static func after(_ record: ModelClocks?, floor: HybridLogicalTimestamp) -> HybridLogicalTimestamp {
        guard let latest = record?.latest, (latest.milliseconds, latest.counter) >= (floor.milliseconds, floor.counter) else { return floor }
        return latest.next(by: floor.replica)
    }

    /// The clocks of `row` (`nil`: no row) given its `record`: the record's clock for each value
    /// whose digest still matches and each member it lists; for each value or member changed
    /// since, a clock from `fresh` (one reading per model), or, when `fresh` is `nil`, nothing
    /// (the change is left out: it is not dated yet). A row without a live record is a new life
    /// of the model (an insert, or a re-insert after a deletion); a live record without a row is
    /// a deletion. A part with a reading in `saved` (when the app saved its change) is dated by
    /// that reading instead of `fresh`.
    ///
    /// - Returns: the clocks and whether they differ from `record`; `nil` when there is nothing
    ///   to date (no row, no record; or an undated change and no `fresh`).
    static func date(_ row: [String: SnapshotValue]?, record: ModelClocks?, parts: SyncedParts,
                     fresh: Fresh?, saved: [Part: HybridLogicalTimestamp] = [:]) -> (clocks: ModelClocks, changed: Bool)? {
        var reading: HybridLogicalTimestamp?
        func now() -> HybridLogicalTimestamp? {
            if reading == nil { reading = fresh?(record) }
            return reading
        }
        func when(_ part: Part) -> HybridLogicalTimestamp? { saved[part] ?? now() }
        guard let row else {
            guard var clocks = record else { return nil }
            if clocks.deleted != nil { return (clocks, false) }
            guard let deleted = when(.life) else { return nil }
            clocks.deleted = deleted
            return (clocks, true)
        }
        guard var clocks = record, clocks.deleted == nil, !isReinserted(clocks, saved: saved) else {
            // A new life: every value and member dated by the insert.
            guard let born = when(.life) else { return nil }
            var clocks = ModelClocks(incarnation: born)
            clocks.mergedInto = nil
            for name in parts.valueNames {
                // A value changed by a later save than the insert is dated by that save.
                let clock = saved[.named(name)].map { max($0, born) } ?? born
                clocks.values[name] = ValueClock(clock: clock, digest: ValueDigest.of(row[name]), base: record?.values[name]?.clock)
            }
            for name in parts.memberNames {
                var members: [String: MemberClock] = [:]
                for member in Self.members(row[name]) { members[ValueDigest.canonicalJSON(member)] = MemberClock(clock: born, present: true) }
                clocks.members[name] = members
            }
            return (clocks, true)
        }
        var changed = false
        for name in parts.valueNames {
            let digest = ValueDigest.of(row[name])
            let held = clocks.values[name]
            // The value its record holds: unchanged, unless an app save since changed it and
            // another changed it back (A → B → A): the latest save still dates it.
            if let held, held.digest == digest, !(saved[.named(name)].map { $0 > held.clock } ?? false) { continue }
            guard let clock = when(.named(name)) else { clocks.values[name] = nil; continue }   // undated: left out
            clocks.values[name] = ValueClock(clock: clock, digest: digest, base: held?.clock)
            changed = true
        }
        for name in parts.memberNames {
            let current = Set(Self.members(row[name]).map(ValueDigest.canonicalJSON))
            var members = clocks.members[name] ?? [:]
            let recorded = Set(members.filter { $0.value.present }.keys)
            for key in current.symmetricDifference(recorded).sorted() {
                guard let clock = when(.named(name)) else { members[key] = nil; continue }
                members[key] = MemberClock(clock: clock, present: current.contains(key))
                changed = true
            }
            clocks.members[name] = members
        }
        return (clocks, changed)
    }

    /// Whether an app save since the record deleted the model and inserted it again (its life is
    /// dated later than the record's), so that a re-insert with the same values is a new life too.
    private static func isReinserted(_ clocks: ModelClocks, saved: [Part: HybridLogicalTimestamp]) -> Bool {
        guard let life = saved[.life], let incarnation = clocks.incarnation else { return false }
        return life > incarnation
    }

    /// The members a to-many value holds.
    static func members(_ value: SnapshotValue?) -> [SnapshotValue] {
        if case .array(let members)? = value { members } else { [] }
    }
}
