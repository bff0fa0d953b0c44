import Foundation
import StoreTestSupport

/// An independent model of the merge rules of the sync contract (coord/SYNC-CONTRACT.md, "Merge
/// rules"), written from the rules and not from the replicator: given every edit the apps made
/// and when each was dated, what every replica must hold once all have synced.
///
/// Dating: a replica's edits are dated by when the app saved them (each save's history timestamp,
/// ticked in the order of the saves by its next round, phase `stampLocal`). The convergence run
/// makes every save, and starts every round, in a wall-clock millisecond later than any clock
/// read so far (``waitForALaterMillisecond(than:)``), so the clocks order the saves as they
/// happened, and within a save the edits in the order they were made. The model orders edits by
/// (save, position) and never needs the clocks' values. An edit counts only once its replica's
/// round has dated it (``roundBegins(on:)``).
///
/// The rules it applies:
/// - attributes and to-one relationships: per field, the value with the latest clock (an edit
///   that sets the value its replica holds changes nothing, and ``SyncEditor`` records none);
/// - to-many (`project.tasks`): the tasks whose to-one (`task.project`) names the project;
/// - delete wins over any concurrent update (`LastWriterWins()`'s default), and the edits never
///   re-insert a deleted identifier, so a model deleted anywhere is deleted everywhere; a to-one
///   that names a deleted model reads nil (the nullify delete rule);
/// - unique key (`SyncLabel.name`): of the labels inserted with one name, the one with the
///   smallest identifier survives; its note is the latest of all their notes; references to the
///   others are redirected to it.
struct MergeRulesModel {
    /// An edit's place in time: the save that made it, then its order among that save's edits.
    struct Clock: Comparable {
        var save: Int
        var position: Int

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.save, lhs.position) < (rhs.save, rhs.position) }
    }

    private struct Dated {
        var edit: SyncEdit
        var clock: Clock
        var replica: Int
    }

    private struct Field: Hashable {
        var id: UUID
        var name: String
    }

    /// Edits saved on each replica since its last round began, with their saves' places in time.
    private var pending: [Int: [Dated]] = [:]
    private var dated: [Dated] = []
    private var saves = 0

    /// Edits `replica` saved (in one save, in order), the save made in a later millisecond than
    /// every earlier save and round.
    mutating func record(_ edits: [SyncEdit], on replica: Int) {
        saves += 1
        for (position, edit) in edits.enumerated() {
            pending[replica, default: []].append(Dated(edit: edit, clock: Clock(save: saves, position: position), replica: replica))
        }
    }

    /// `replica`'s round begins: its edits since its last round are dated now (by their saves).
    mutating func roundBegins(on replica: Int) {
        dated += pending.removeValue(forKey: replica) ?? []
    }

    /// The dated edits of the models `ids`, and those that name one of them, in clock order, one
    /// line each ("save.position replica edit"): what a failure message shows of the models
    /// the replicas and the model disagree on.
    func history(of ids: Set<UUID>) -> [String] {
        func names(_ value: SyncFieldValue) -> Bool { if case .reference(let id?) = value { ids.contains(id) } else { false } }
        return dated.filter { ids.contains($0.edit.id) || $0.edit.fields.values.contains(where: names) }
            .sorted { $0.clock < $1.clock }
            .map { "\($0.clock.save).\($0.clock.position) r\($0.replica) \($0.edit)" }
    }

    /// Edits saved and not yet dated (none once every replica began a round after its last save).
    var undatedEdits: Int { pending.values.map(\.count).reduce(0, +) }

    /// What every replica must hold.
    var expectedRows: SyncRows {
        var latest: [Field: (value: SyncFieldValue, clock: Clock)] = [:]
        var inserted: [SyncEntity: Set<UUID>] = [:]
        var deleted = Set<UUID>()
        var labelNames: [UUID: String] = [:]
        for item in dated {
            let edit = item.edit
            if edit.isDelete {
                deleted.insert(edit.id)
                continue
            }
            if edit.isInsert {
                inserted[edit.entity, default: []].insert(edit.id)
                if edit.entity == .label, case .text(let name)? = edit.fields["name"] { labelNames[edit.id] = name }
            }
            for (name, value) in edit.fields {
                let field = Field(id: edit.id, name: name)
                if let held = latest[field], held.clock > item.clock { continue }
                latest[field] = (value, item.clock)
            }
        }
        func text(_ id: UUID, _ name: String) -> String {
            if case .text(let text)? = latest[Field(id: id, name: name)]?.value { return text }
            return "<missing \(name)>"
        }
        func reference(_ id: UUID, _ name: String) -> UUID? {
            if case .reference(let target)? = latest[Field(id: id, name: name)]?.value { return target }
            return nil
        }

        var rows = SyncRows()
        // Unique key: the smallest identifier of each name survives, with the latest note.
        var survivor: [UUID: UUID] = [:]
        for (name, ids) in Dictionary(grouping: labelNames.keys, by: { labelNames[$0]! }) {
            let kept = ids.min { $0.uuidString < $1.uuidString }!
            for id in ids { survivor[id] = kept }
            let notes = ids.compactMap { latest[Field(id: $0, name: "note")] }
            let note = notes.max { $0.clock < $1.clock }.map { "\($0.value)" } ?? "<missing note>"
            rows.labels[kept] = SyncRows.Label(name: name, note: note)
        }
        let liveProjects = (inserted[.project] ?? []).subtracting(deleted)
        for id in (inserted[.task] ?? []).subtracting(deleted) {
            var priority = -1, done = false
            if case .number(let number)? = latest[Field(id: id, name: "priority")]?.value { priority = number }
            if case .flag(let flag)? = latest[Field(id: id, name: "done")]?.value { done = flag }
            let project = reference(id, "project").flatMap { liveProjects.contains($0) ? $0 : nil }
            let label = reference(id, "label").map { survivor[$0] ?? $0 }
            rows.tasks[id] = SyncRows.Task(title: text(id, "title"), priority: priority, done: done, owner: text(id, "owner"),
                                           project: project, label: label)
        }
        for id in liveProjects {
            rows.projects[id] = SyncRows.Project(name: text(id, "name"), owner: text(id, "owner"),
                                                 tasks: Set(rows.tasks.filter { $0.value.project == id }.keys))
        }
        return rows
    }

    /// How many conflicts the edits held, by kind, for the run's figures: fields two or more
    /// replicas changed, models one replica deleted and another changed, label names two or
    /// more replicas inserted.
    var conflicts: (overlappingFields: Int, deleteVersusUpdate: Int, uniqueCollisions: Int) {
        var writers: [Field: Set<Int>] = [:]
        var deleters: [UUID: Set<Int>] = [:], updaters: [UUID: Set<Int>] = [:]
        var labelInserts: [String: Int] = [:]
        for item in dated {
            if item.edit.isDelete {
                deleters[item.edit.id, default: []].insert(item.replica)
                continue
            }
            if item.edit.kind == .labelInsert, case .text(let name)? = item.edit.fields["name"] { labelInserts[name, default: 0] += 1 }
            if !item.edit.isInsert { updaters[item.edit.id, default: []].insert(item.replica) }
            for name in item.edit.fields.keys { writers[Field(id: item.edit.id, name: name), default: []].insert(item.replica) }
        }
        let deleteVersusUpdate = deleters.filter { id, replicas in !(updaters[id] ?? []).subtracting(replicas).isEmpty }.count
        return (writers.values.filter { $0.count > 1 }.count, deleteVersusUpdate, labelInserts.values.filter { $0 > 1 }.count)
    }
}

/// Spins until the wall clock reads a later millisecond than `milliseconds`: a replicator dates a
/// save's edits with hybrid clock ticks of at least the save's millisecond, so a save (or a
/// round) made after this is dated after every clock read before. Not a wait for another thread:
/// the clock reading is the condition (at most a millisecond).
func waitForALaterMillisecond(than milliseconds: Int64) {
    while wallMilliseconds() <= milliseconds {}
}

/// The wall clock in milliseconds since 1970, as hybrid clocks read it.
func wallMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
