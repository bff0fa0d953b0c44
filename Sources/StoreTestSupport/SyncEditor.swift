import DataStores

/// A value an edit gave an attribute or a to-one relationship.
public enum SyncFieldValue: Hashable, Sendable, CustomStringConvertible {
    case text(String)
    case number(Int)
    case flag(Bool)
    case reference(UUID?)

    public var description: String {
        switch self {
        case .text(let text): text
        case .number(let number): "\(number)"
        case .flag(let flag): "\(flag)"
        case .reference(let id): id?.uuidString ?? "nil"
        }
    }
}

/// Which sync test model an edit touched.
public enum SyncEntity: String, Hashable, Sendable {
    case task, project, label
}

/// One change an app made to one model, as the app saw it: what a model of the merge rules
/// needs to compute what every replica must hold, without looking at the replicator.
public struct SyncEdit: Sendable, CustomStringConvertible {
    public enum Kind: String, CaseIterable, Sendable {
        case insert
        /// An insert of a label whose name no model on this replica has (another replica may).
        case labelInsert = "label insert"
        case update
        case delete
        /// `task.project = …` (the to-one side of a relationship with a to-many inverse).
        case toOne = "to-one"
        /// `project.tasks.append(…)` or removal (the to-many side).
        case toMany = "to-many"
        /// `task.label = …` (a to-one without an inverse).
        case label
        /// A task's project set to nil because its project was deleted in the same save.
        case nullified
    }

    public var kind: Kind
    public var entity: SyncEntity
    public var id: UUID
    /// What the edit set: every field for an insert, nothing for a delete.
    public var fields: [String: SyncFieldValue]

    public init(_ kind: Kind, _ entity: SyncEntity, _ id: UUID, _ fields: [String: SyncFieldValue] = [:]) {
        self.kind = kind
        self.entity = entity
        self.id = id
        self.fields = fields
    }

    public var isDelete: Bool { kind == .delete }
    public var isInsert: Bool { kind == .insert || kind == .labelInsert }

    public var description: String {
        "\(kind.rawValue) \(entity.rawValue) \(id) " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

/// Makes random app edits of the sync test models in a context, and says what it did.
public struct SyncEditor: Sendable {
    /// Written into the models it inserts, and into text values, so values differ by replica.
    public let owner: String
    /// Only change the models this owner made (the kill harness: replicas then never conflict).
    public let ownedOnly: Bool
    /// Insert labels and set tasks' labels (unique-key collisions when replicas pick one name).
    public let labels: Bool

    /// The label names replicas pick from: few, so that replicas collide.
    public static let labelNames = ["red", "green", "blue", "amber", "teal", "plum"]
    /// Put before each label name: replicas with different prefixes never collide.
    public let labelNamePrefix: String

    public init(owner: String, ownedOnly: Bool = false, labels: Bool = true, labelNamePrefix: String = "") {
        self.owner = owner
        self.ownedOnly = ownedOnly
        self.labels = labels
        self.labelNamePrefix = labelNamePrefix
    }

    /// Makes one random edit in `context`, unsaved, of tasks and projects not in `touched`, and
    /// adds those it deletes or whose relationship it changes (both ends); start each save with
    /// an empty set. Returns the edits it made, in order.
    ///
    /// Why it leaves touched models alone: a context keeps the inverse of a relationship in step
    /// at the save (or `processPendingChanges()`), so until then a project's `tasks` still lists
    /// a task this save moved elsewhere, and a task's `project` still names the project it was
    /// appended away from. An edit that read them would record what the save does not do (seed
    /// 989318679: a task appended to another project's tasks, then its old project deleted, was
    /// recorded as nullified), and two changes of one relationship in one save, one per end,
    /// are not ordered by the context (the save applies them in the order of its models).
    public func edit(_ context: ModelContext, touched: inout Set<UUID>, using generator: inout SeededGenerator) throws -> [SyncEdit] {
        let tasks = try context.fetch(FetchDescriptor<SyncTask>())
            .filter { !touched.contains($0.id) && (!ownedOnly || $0.owner == owner) }.sorted { $0.id.uuidString < $1.id.uuidString }
        let projects = try context.fetch(FetchDescriptor<SyncProject>())
            .filter { !touched.contains($0.id) && (!ownedOnly || $0.owner == owner) }.sorted { $0.id.uuidString < $1.id.uuidString }
        let heldLabels = labels ? try context.fetch(FetchDescriptor<SyncLabel>()).sorted { $0.id.uuidString < $1.id.uuidString } : []
        func text() -> String { "\(owner)-\(UInt32.random(in: 0...UInt32.max, using: &generator))" }
        func pick<T>(_ models: [T]) -> T { models[Int.random(in: 0..<models.count, using: &generator)] }

        let roll = Int.random(in: 0..<100, using: &generator)
        switch roll {
        case 0..<20 where !tasks.isEmpty:
            let task = pick(tasks)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                task.title = text()
                return [SyncEdit(.update, .task, task.id, ["title": .text(task.title)])]
            case 1:
                task.priority = Int.random(in: 0..<1_000_000, using: &generator)
                return [SyncEdit(.update, .task, task.id, ["priority": .number(task.priority)])]
            default:
                task.done.toggle()
                return [SyncEdit(.update, .task, task.id, ["done": .flag(task.done)])]
            }
        case 20..<26 where !projects.isEmpty:
            let project = pick(projects)
            project.name = text()
            return [SyncEdit(.update, .project, project.id, ["name": .text(project.name)])]
        case 26..<32 where !heldLabels.isEmpty:
            let label = pick(heldLabels)
            label.note = text()
            return [SyncEdit(.update, .label, label.id, ["note": .text(label.note)])]
        case 32..<42 where !tasks.isEmpty:
            let task = pick(tasks)
            let project = projects.isEmpty || Bool.random(using: &generator) && task.project != nil ? nil : pick(projects)
            // Setting the value the task holds changes nothing: no edit (a later one elsewhere wins).
            guard project?.id != task.project?.id else { return [] }
            touched.formUnion([task.id, task.project?.id, project?.id].compactMap { $0 })
            task.project = project
            return [SyncEdit(.toOne, .task, task.id, ["project": .reference(project?.id)])]
        case 42..<50 where !tasks.isEmpty && !projects.isEmpty:
            let task = pick(tasks), project = pick(projects)
            touched.formUnion([task.id, task.project?.id, project.id].compactMap { $0 })
            if project.tasks.contains(where: { $0.id == task.id }) {
                project.tasks.removeAll { $0.id == task.id }
                return [SyncEdit(.toMany, .task, task.id, ["project": .reference(nil)])]
            }
            project.tasks.append(task)
            return [SyncEdit(.toMany, .task, task.id, ["project": .reference(project.id)])]
        case 50..<56 where !tasks.isEmpty && !heldLabels.isEmpty:
            let task = pick(tasks)
            let label = Bool.random(using: &generator) && task.label != nil ? nil : pick(heldLabels)
            guard label?.id != task.label?.id else { return [] }
            task.label = label
            return [SyncEdit(.label, .task, task.id, ["label": .reference(label?.id)])]
        case 56..<64 where !tasks.isEmpty:
            let task = pick(tasks)
            context.delete(task)
            touched.insert(task.id)
            return [SyncEdit(.delete, .task, task.id)]
        case 64..<67 where !projects.isEmpty:
            let project = pick(projects)
            // The delete rule (nullify) clears the members' project in the same save.
            let members = project.tasks.filter { !touched.contains($0.id) }.map(\.id)
            context.delete(project)
            touched.insert(project.id)
            touched.formUnion(members)
            return [SyncEdit(.delete, .project, project.id)] + members.map { SyncEdit(.nullified, .task, $0, ["project": .reference(nil)]) }
        case 67..<75:
            let project = SyncProject(name: text(), owner: owner)
            project.id = UUID(uuid: generator.uuidBytes())
            context.insert(project)
            return [SyncEdit(.insert, .project, project.id, ["name": .text(project.name), "owner": .text(owner)])]
        case 75..<83 where labels:
            let free = Self.labelNames.map { labelNamePrefix + $0 }.filter { name in !heldLabels.contains { $0.name == name } }
            guard !free.isEmpty else { fallthrough }
            let label = SyncLabel(name: pick(free), note: text())
            label.id = UUID(uuid: generator.uuidBytes())
            context.insert(label)
            return [SyncEdit(.labelInsert, .label, label.id, ["name": .text(label.name), "note": .text(label.note)])]
        default:
            let task = SyncTask(title: text(), priority: Int.random(in: 0..<1_000_000, using: &generator),
                                done: Bool.random(using: &generator), owner: owner)
            task.id = UUID(uuid: generator.uuidBytes())
            context.insert(task)
            let project = projects.isEmpty || Bool.random(using: &generator) ? nil : pick(projects)
            let label = heldLabels.isEmpty || Bool.random(using: &generator) ? nil : pick(heldLabels)
            task.project = project
            task.label = label
            touched.formUnion([task.id, project?.id].compactMap { $0 })
            return [SyncEdit(.insert, .task, task.id, [
                "title": .text(task.title), "priority": .number(task.priority), "done": .flag(task.done), "owner": .text(owner),
                "project": .reference(project?.id), "label": .reference(label?.id),
            ])]
        }
    }
}
