import DataStores
import Foundation
import MemoryStore
import Testing

/// A task belongs to at most one project: `Task.project` (to-one) and `Project.tasks` (to-many)
/// are an inverse pair with the default delete rule (`.nullify`).
@Model final class StepTask {
    var title: String = ""
    var project: StepProject?
    init(_ title: String) { self.title = title }
}

@Model final class StepProject {
    var name: String = ""
    @Relationship(inverse: \StepTask.project) var tasks: [StepTask] = []
    init(_ name: String) { self.name = name }
}

/// A change made after an explicit ``ModelContext/processPendingChanges()`` and before the save
/// is the last change made to the relationship, so it wins, as in SwiftData (which keeps the
/// inverse in step as each change is made). The context once compared each relationship with
/// its last saved values, so the pass at the save undid the later change from the other end.
@Suite struct InverseAfterProcessPendingChangesTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: StepTask.self, StepProject.self, configurations: MemoryStoreConfiguration())
    }

    /// The tasks and projects as a fresh context reads them: title → project name ("none"), and
    /// project name → task titles.
    private func stored(_ container: ModelContainer) throws -> (tasks: [String: String], projects: [String: [String]]) {
        let reader = ModelContext(container)
        let tasks = try reader.fetch(FetchDescriptor<StepTask>())
        let projects = try reader.fetch(FetchDescriptor<StepProject>())
        return (Dictionary(uniqueKeysWithValues: tasks.map { ($0.title, $0.project?.name ?? "none") }),
                Dictionary(uniqueKeysWithValues: projects.map { ($0.name, $0.tasks.map(\.title).sorted()) }))
    }

    @Test func removingFromTheToManyAfterProcessPendingChangesWins() throws {
        let container = try container()
        let context = ModelContext(container)
        let task = StepTask("write"), project = StepProject("docs")
        context.insert(task)
        context.insert(project)
        try context.save()
        task.project = project
        try context.processPendingChanges()
        #expect(project.tasks.map(\.title) == ["write"], "processPendingChanges set the inverse")
        project.tasks.removeAll { $0 === task }
        try context.save()
        #expect(task.project == nil)
        #expect(project.tasks.isEmpty)
        let read = try stored(container)
        #expect(read.tasks == ["write": "none"])
        #expect(read.projects == ["docs": []])
    }

    /// After processPendingChanges the project's `tasks` holds the new task; without it, the
    /// task refers to the project through its to-one. Neither may bring the deleted task back.
    @Test(arguments: [true, false]) func deletingAnInsertedModelDoesNotSaveIt(processedFirst: Bool) throws {
        let container = try container()
        let context = ModelContext(container)
        let project = StepProject("docs")
        context.insert(project)
        try context.save()
        let task = StepTask("write")
        task.project = project
        context.insert(task)
        if processedFirst { try context.processPendingChanges() }
        context.delete(task)
        try context.save()
        #expect(project.tasks.isEmpty)
        let read = try stored(container)
        #expect(read.tasks.isEmpty)
        #expect(read.projects == ["docs": []])
    }

    @Test func deletingAStoredModelAfterProcessPendingChangesTakesItOutOfItsInverse() throws {
        let container = try container()
        let context = ModelContext(container)
        let project = StepProject("docs"), other = StepProject("site")
        let task = StepTask("write")
        task.project = project
        context.insert(task)
        context.insert(other)
        try context.save()
        task.project = other
        try context.processPendingChanges()
        context.delete(task)
        try context.save()
        #expect(project.tasks.isEmpty)
        #expect(other.tasks.isEmpty)
        let read = try stored(container)
        #expect(read.tasks.isEmpty)
        #expect(read.projects == ["docs": [], "site": []])
    }

    @Test func settingTheToOneAgainAfterProcessPendingChangesWins() throws {
        let container = try container()
        let context = ModelContext(container)
        let first = StepProject("docs"), second = StepProject("site")
        context.insert(first)
        context.insert(second)
        try context.save()
        let task = StepTask("write")
        task.project = first
        context.insert(task)
        try context.processPendingChanges()
        task.project = second
        try context.save()
        #expect(task.project === second)
        #expect(first.tasks.isEmpty)
        #expect(second.tasks.map(\.title) == ["write"])
        let read = try stored(container)
        #expect(read.tasks == ["write": "site"])
        #expect(read.projects == ["docs": [], "site": ["write"]])
    }

    /// Moving a task between projects from the to-many end after processPendingChanges.
    @Test func appendingToAnotherToManyAfterProcessPendingChangesWins() throws {
        let container = try container()
        let context = ModelContext(container)
        let first = StepProject("docs"), second = StepProject("site")
        let task = StepTask("write")
        context.insert(task)
        context.insert(first)
        context.insert(second)
        try context.save()
        task.project = first
        try context.processPendingChanges()
        second.tasks.append(task)
        try context.processPendingChanges()
        task.project = nil
        try context.save()
        #expect(first.tasks.isEmpty)
        #expect(second.tasks.isEmpty)
        let read = try stored(container)
        #expect(read.tasks == ["write": "none"])
        #expect(read.projects == ["docs": [], "site": []])
    }

    /// Undo still works across an explicit processPendingChanges (it closes the undo group).
    @Test func undoAfterProcessPendingChangesRestoresBothEnds() throws {
        let container = try container()
        let context = ModelContext(container)
        context.undoManager = ModelUndoManager()
        let project = StepProject("docs")
        let task = StepTask("write")
        context.insert(task)
        context.insert(project)
        try context.save()
        task.project = project
        try context.processPendingChanges()
        context.undoManager?.undo()
        #expect(task.project == nil)
        #expect(project.tasks.isEmpty)
        project.tasks.append(task)
        try context.save()
        #expect(task.project === project)
        let read = try stored(container)
        #expect(read.tasks == ["write": "docs"])
        #expect(read.projects == ["docs": ["write"]])
    }

    /// Undoing the delete of a new model brings it back into its inverse, and the save stores it.
    @Test func undoingTheDeleteOfANewModelStoresItWithItsRelationship() throws {
        let container = try container()
        let context = ModelContext(container)
        context.undoManager = ModelUndoManager()
        let project = StepProject("docs")
        context.insert(project)
        try context.save()
        let task = StepTask("write")
        task.project = project
        context.insert(task)
        try context.processPendingChanges()
        context.delete(task)
        context.undoManager?.undo()
        try context.save()
        #expect(project.tasks.map(\.title) == ["write"])
        let read = try stored(container)
        #expect(read.tasks == ["write": "docs"])
        #expect(read.projects == ["docs": ["write"]])
    }

    /// A rollback returns both ends to their stored values: a change made after is kept.
    @Test func aChangeAfterARollbackOfProcessedChangesWins() throws {
        let container = try container()
        let context = ModelContext(container)
        let first = StepProject("docs"), second = StepProject("site")
        let task = StepTask("write")
        task.project = first
        context.insert(task)
        context.insert(second)
        try context.save()
        task.project = second
        try context.processPendingChanges()
        context.rollback()
        #expect(task.project === first)
        #expect(first.tasks.map(\.title) == ["write"])
        #expect(second.tasks.isEmpty)
        first.tasks.removeAll { $0 === task }
        try context.save()
        #expect(task.project == nil)
        let read = try stored(container)
        #expect(read.tasks == ["write": "none"])
        #expect(read.projects == ["docs": [], "site": []])
    }

    /// A new model put into the to-many end by hand (its to-one not set yet, no pass since) and
    /// deleted before a save: the save's walk over related models met it in that to-many and
    /// inserted it again. The context remembers the new models it deleted until the next save,
    /// and the walk takes them out of the to-many instead (finding every relationship that holds
    /// one at the delete would cost a walk over every changed model per delete).
    @Test func deletingANewModelAppendedToTheToManyDoesNotSaveIt() throws {
        let container = try container()
        let context = ModelContext(container)
        let project = StepProject("docs")
        context.insert(project)
        try context.save()
        let task = StepTask("write")
        project.tasks.append(task)
        context.insert(task)
        context.delete(task)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<StepTask>()) == 0)
        #expect(try reader.fetch(FetchDescriptor<StepProject>()).first?.tasks.isEmpty == true)
        #expect(project.tasks.isEmpty)
    }

    /// A new model deleted and inserted again before the save is saved, in the to-many that holds it.
    @Test func aNewModelDeletedAndInsertedAgainIsSaved() throws {
        let container = try container()
        let context = ModelContext(container)
        let project = StepProject("docs")
        context.insert(project)
        try context.save()
        let task = StepTask("write")
        project.tasks.append(task)
        context.insert(task)
        context.delete(task)
        context.insert(task)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<StepProject>()).first?.tasks.map(\.title) == ["write"])
    }
}
