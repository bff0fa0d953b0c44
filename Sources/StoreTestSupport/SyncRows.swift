import DataStores

/// What a container holds of the sync test models, by identifier: the value two replicas must
/// agree on once synced, and that a model of the merge rules predicts.
public struct SyncRows: Equatable, Sendable, CustomStringConvertible {
    public struct Task: Equatable, Sendable {
        public var title: String
        public var priority: Int
        public var done: Bool
        public var owner: String
        public var project: UUID?
        public var label: UUID?

        public init(title: String, priority: Int, done: Bool, owner: String, project: UUID?, label: UUID?) {
            self.title = title
            self.priority = priority
            self.done = done
            self.owner = owner
            self.project = project
            self.label = label
        }
    }

    public struct Project: Equatable, Sendable {
        public var name: String
        public var owner: String
        public var tasks: Set<UUID>

        public init(name: String, owner: String, tasks: Set<UUID>) {
            self.name = name
            self.owner = owner
            self.tasks = tasks
        }
    }

    public struct Label: Equatable, Sendable {
        public var name: String
        public var note: String

        public init(name: String, note: String) {
            self.name = name
            self.note = note
        }
    }

    public var tasks: [UUID: Task] = [:]
    public var projects: [UUID: Project] = [:]
    public var labels: [UUID: Label] = [:]

    public init() {}

    /// Reads every task, project and label through a new context of `container`.
    public init(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        for task in try context.fetch(FetchDescriptor<SyncTask>()) {
            tasks[task.id] = Task(title: task.title, priority: task.priority, done: task.done, owner: task.owner,
                                  project: task.project?.id, label: task.label?.id)
        }
        for project in try context.fetch(FetchDescriptor<SyncProject>()) {
            projects[project.id] = Project(name: project.name, owner: project.owner, tasks: Set(project.tasks.map(\.id)))
        }
        for label in try context.fetch(FetchDescriptor<SyncLabel>()) {
            labels[label.id] = Label(name: label.name, note: label.note)
        }
    }

    /// The tasks and projects `owner` made (labels have no owner: none).
    public func owned(by owner: String) -> SyncRows {
        var rows = SyncRows()
        rows.tasks = tasks.filter { $0.value.owner == owner }
        rows.projects = projects.filter { $0.value.owner == owner }
        return rows
    }

    public var isEmpty: Bool { tasks.isEmpty && projects.isEmpty && labels.isEmpty }

    /// One line per row, sorted: what a failure message shows and ``digest`` hashes.
    public var lines: [String] {
        func text(_ id: UUID?) -> String { id?.uuidString ?? "nil" }
        return (tasks.map { id, task in
            "task \(id) title=\(task.title) priority=\(task.priority) done=\(task.done) owner=\(task.owner) "
                + "project=\(text(task.project)) label=\(text(task.label))"
        } + projects.map { id, project in
            "project \(id) name=\(project.name) owner=\(project.owner) tasks=\(project.tasks.map(\.uuidString).sorted())"
        } + labels.map { id, label in
            "label \(id) name=\(label.name) note=\(label.note)"
        }).sorted()
    }

    public var description: String { lines.joined(separator: "\n") }

    /// A 64-bit FNV-1a hash of ``lines``, as 16 hex digits: what a child process prints so
    /// that its parent can compare rows without sharing its memory.
    public var digest: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in lines.joined(separator: "\n").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// The rows that differ between `self` and `other`, at most `limit` of them, for a failure message.
    public func difference(from other: SyncRows, limit: Int = 8) -> String {
        let mine = Set(lines), theirs = Set(other.lines)
        let only = mine.subtracting(theirs).sorted().prefix(limit).map { "- " + $0 }
            + theirs.subtracting(mine).sorted().prefix(limit).map { "+ " + $0 }
        return only.joined(separator: "\n")
    }
}
