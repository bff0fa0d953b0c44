import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreSync
import StoreTestSupport
import Testing

/// A history position that no longer exists on its side (history deleted past it): the next
/// round resyncs (`SyncReport.resynced`), and nothing either replica saved is lost.
@Suite struct ExpiredHistoryTests {
    /// Where history is deleted.
    enum Side: String, CaseIterable, Sendable {
        case remote, local, both
    }

    /// Replica A (JSON) and B (memory) around a JSON remote. Both sync a task, a project and a
    /// task to delete; then B changes the task's title, inserts a task and syncs, while A, offline,
    /// changes the task's priority, renames the project, deletes the other task and inserts one;
    /// the history of `side` is deleted (the remote's: past A's pull position; A's: past its
    /// stamp and push positions); A syncs, then both until quiet.
    /// Returns whether A's round reported a resync, and what is wrong with the rows.
    static func scenario(_ side: Side, sabotage: SyncSabotage? = nil) async throws -> (resynced: Bool, problems: [String]) {
        let directory = try temporaryDirectory()
        let schema = Schema(syncTestModelTypes + Replicator.models)
        func json(_ name: String, _ sabotage: SyncSabotage?) throws -> ModelContainer {
            let configuration = JSONStoreConfiguration(url: directory.appending(path: name))
            guard let sabotage else { return try ModelContainer(for: schema, configurations: configuration) }
            return try ModelContainer(for: schema, configurations: SabotagedStoreConfiguration(configuration, sabotage: sabotage))
        }
        let localA = try json("a.json", side == .remote ? nil : sabotage)
        let localB = try ModelContainer(for: schema, configurations: MemoryStoreConfiguration(name: "b"))
        let remote = try json("remote.json", nil)
        let a = try Replicator(local: localA, remote: try json("remote.json", side == .local ? nil : sabotage))
        let b = try Replicator(local: localB, remote: try json("remote.json", nil))

        let contextA = ModelContext(localA)
        let task = SyncTask(title: "first", priority: 1, done: false, owner: "A")
        let doomed = SyncTask(title: "doomed", priority: 2, done: false, owner: "A")
        let project = SyncProject(name: "project", owner: "A")
        contextA.insert(task)
        contextA.insert(doomed)
        contextA.insert(project)
        task.project = project
        try contextA.save()
        try await a.sync()
        try await b.sync()

        let contextB = ModelContext(localB)
        let taskB = try #require(try contextB.fetch(FetchDescriptor<SyncTask>()).first { $0.id == task.id })
        taskB.title = "title from B"
        let fromB = SyncTask(title: "inserted by B", priority: 3, done: true, owner: "B")
        contextB.insert(fromB)
        fromB.project = try contextB.fetch(FetchDescriptor<SyncProject>()).first
        try contextB.save()
        try await b.sync()

        task.priority = 7
        project.name = "renamed by A"
        contextA.delete(doomed)
        let fromA = SyncTask(title: "inserted by A", priority: 4, done: false, owner: "A")
        contextA.insert(fromA)
        try contextA.save()

        if side != .local { try remote.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>()) }
        if side != .remote { try localA.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>()) }
        let report = try await a.sync()
        for _ in 0..<4 {
            let reports = [try await b.sync(), try await a.sync()]
            if reports.allSatisfy({ $0.pushedTransactions + $0.pulledTransactions == 0 }) { break }
        }

        var problems: [String] = []
        let rowsA = try SyncRows(localA), rowsB = try SyncRows(localB), rowsRemote = try SyncRows(remote)
        if rowsA != rowsRemote { problems.append("A and the remote differ:\n\(rowsA.difference(from: rowsRemote))") }
        if rowsB != rowsRemote { problems.append("B and the remote differ:\n\(rowsB.difference(from: rowsRemote))") }
        for (name, rows) in [("A", rowsA), ("B", rowsB), ("the remote", rowsRemote)] {
            let expected: [String: SyncRows.Task?] = [
                "the task": SyncRows.Task(title: "title from B", priority: 7, done: false, owner: "A", project: project.id, label: nil),
                "B's task": SyncRows.Task(title: "inserted by B", priority: 3, done: true, owner: "B", project: project.id, label: nil),
                "A's task": SyncRows.Task(title: "inserted by A", priority: 4, done: false, owner: "A", project: nil, label: nil),
                "the deleted task": nil,
            ]
            let ids = ["the task": task.id, "B's task": fromB.id, "A's task": fromA.id, "the deleted task": doomed.id]
            for (label, row) in expected where rows.tasks[ids[label]!] != row {
                problems.append("\(name) holds \(label) as \(rows.tasks[ids[label]!].map { "\($0)" } ?? "nothing"), not \(row.map { "\($0)" } ?? "nothing")")
            }
            if rows.projects[project.id]?.name != "renamed by A" { problems.append("\(name) lost the project's new name") }
        }
        return (report.resynced, problems)
    }

    @Test(arguments: Side.allCases)
    func anExpiredPositionResyncsAndLosesNothing(_ side: Side) async throws {
        let (resynced, problems) = try await Self.scenario(side)
        #expect(resynced, "A's round after the history was deleted reports a resync")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The negative control: stores that hand out what is left after an expired position, as if
    /// nothing had been deleted, hide the gap from the replicator: the scenario reports lost changes.
    @Test(arguments: Side.allCases)
    func storesThatHideTheGapFailTheScenario(_ side: Side) async throws {
        let (_, problems) = try await Self.scenario(side, sabotage: .neverExpiresTokens)
        #expect(!problems.isEmpty, "the scenario missed a gap in \(side.rawValue) history")
    }
}
