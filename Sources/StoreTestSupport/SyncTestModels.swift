import DataStores

// The models the replicator's tests sync: StoreSyncTests in process, and the StoreTestHelper
// processes those tests kill. Together they hold what the merge rules distinguish: overlapping
// attributes (title, priority, done), a to-one relationship with a to-many inverse
// (task.project / project.tasks), a to-one without an inverse (task.label), and a unique key
// (label.name) that two replicas can both insert.

/// A project: a to-many relationship whose inverse is ``SyncTask/project``.
@Model
public final class SyncProject {
    public var id = UUID()
    public var name: String
    /// The replica that made it (the kill harness edits only its own models).
    public var owner: String
    @Relationship(inverse: \SyncTask.project) public var tasks: [SyncTask] = []

    public init(name: String, owner: String) {
        self.name = name
        self.owner = owner
    }
}

/// A task: the attributes replicas change at once, and two to-one relationships.
@Model
public final class SyncTask {
    public var id = UUID()
    public var title: String
    public var priority: Int
    public var done: Bool
    /// The replica that made it (the kill harness edits only its own models).
    public var owner: String
    public var project: SyncProject?
    public var label: SyncLabel?

    public init(title: String, priority: Int, done: Bool, owner: String) {
        self.title = title
        self.priority = priority
        self.done = done
        self.owner = owner
    }
}

/// A label, unique by name: two replicas inserting one name is a unique-key collision.
@Model
public final class SyncLabel {
    #Unique<SyncLabel>([\.name])
    public var id = UUID()
    public var name: String
    public var note: String

    public init(name: String, note: String) {
        self.name = name
        self.note = note
    }
}

/// The sync tests' model types, without the replicator's own (add `Replicator.models`).
public var syncTestModelTypes: [any PersistentModel.Type] { [SyncProject.self, SyncTask.self, SyncLabel.self] }
