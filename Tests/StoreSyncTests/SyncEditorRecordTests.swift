import DataStores
import Foundation
import MemoryStore
import StoreSync
import StoreTestSupport
import Testing

/// The convergence run's premise, without a replicator: what ``SyncEditor`` records of a save is
/// what the save did. ``MergeRulesModel`` computes what the replicas must hold from those records,
/// so a wrong record reads as a disagreement between the model and the replicator (seed
/// 989318679: a task appended to another project's tasks, then its old project deleted, in one
/// save, was recorded as nullified by the deletion; the save kept it in its new project).
@Suite struct SyncEditorRecordTests {
    /// Saves of many edits each among few tasks and projects, so that one save often changes one
    /// relationship twice, from either side, or deletes a project whose members it changed.
    @Test(arguments: 0..<40)
    func aSaveDoesWhatTheEditorRecords(seed: UInt64) throws {
        let container = try ModelContainer(for: Schema(syncTestModelTypes + Replicator.models),
                                           configurations: MemoryStoreConfiguration(name: "editor-\(UUID().uuidString)"))
        var generator = SeededGenerator(seed: seed)
        let editor = SyncEditor(owner: "r0", labelNamePrefix: "r0-")
        let setup = ModelContext(container)
        let projects = (0..<2).map { SyncProject(name: "p\($0)", owner: "r0") }
        for (index, project) in projects.enumerated() {
            setup.insert(project)
            let task = SyncTask(title: "t\(index)", priority: 0, done: false, owner: "r0")
            setup.insert(task)
            task.project = project
        }
        try setup.save()
        for save in 0..<3 {
            let context = ModelContext(container)
            var touched = Set<UUID>(), edits: [SyncEdit] = []
            for _ in 0..<6 { edits += try editor.edit(context, touched: &touched, using: &generator) }
            try context.save()
            let contradictions = try SyncRows(container).contradictions(of: edits)
            #expect(contradictions.isEmpty, "save \(save): \(contradictions) of \(edits.map(\.description))")
        }
    }
}
