import Foundation
import StoreTestSupport

extension SyncRows {
    /// What `edits` (one save's, in order) record that these rows, read right after the save,
    /// contradict: a deleted model still held, a field that holds another value than the last
    /// the edits gave it, a project whose tasks are not the tasks that name it. Empty when the
    /// edits are a true record of the save.
    func contradictions(of edits: [SyncEdit]) -> [String] {
        var last: [UUID: [String: SyncFieldValue]] = [:], deleted = Set<UUID>()
        for edit in edits {
            if edit.isDelete { deleted.insert(edit.id) } else { last[edit.id, default: [:]].merge(edit.fields) { $1 } }
        }
        var found: [String] = []
        for id in deleted where tasks[id] != nil || projects[id] != nil || labels[id] != nil {
            found.append("\(id) is recorded deleted and is held")
        }
        for (id, fields) in last where !deleted.contains(id) {
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                let held = field(name, of: id)
                if held != value { found.append("\(id).\(name) is recorded \(value), holds \(held.map(\.description) ?? "no row")") }
            }
        }
        for (id, project) in projects {
            let naming = Set(tasks.filter { $0.value.project == id }.keys)
            if project.tasks != naming {
                found.append("project \(id) lists tasks \(project.tasks.map(\.uuidString).sorted()), named by \(naming.map(\.uuidString).sorted())")
            }
        }
        return found
    }

    /// The value a field of a held row holds, as an edit records it; `nil` without the row.
    private func field(_ name: String, of id: UUID) -> SyncFieldValue? {
        if let task = tasks[id] {
            switch name {
            case "title": return .text(task.title)
            case "priority": return .number(task.priority)
            case "done": return .flag(task.done)
            case "owner": return .text(task.owner)
            case "project": return .reference(task.project)
            default: return .reference(task.label)
            }
        }
        if let project = projects[id] { return .text(name == "name" ? project.name : project.owner) }
        if let label = labels[id] { return .text(name == "name" ? label.name : label.note) }
        return nil
    }
}
