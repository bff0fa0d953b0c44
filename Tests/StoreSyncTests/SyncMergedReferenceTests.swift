import DataStores
import Foundation
import JSONStore
import MemoryStore
@testable import StoreSync
import StoreTestSupport
import Testing

/// A board listing labels: a to-many relationship without an inverse, dated member by member,
/// to a model with a unique key.
@Model final class SyncLabelBoard {
    var name: String
    var labels: [SyncLabel] = []
    init(name: String) { self.name = name }
}

/// References to a model merged away on a unique key are moved to the survivor: those held when
/// the merge is made or learned of (to-one and to-many), and those that arrive later from a
/// replica that saved them before it saw the merge.
@Suite struct SyncMergedReferenceTests {
    static let schema = Schema(syncTestModelTypes + [SyncLabelBoard.self] + Replicator.models)
    static let small = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    static let large = UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000001")!

    /// Replicas of one remote, on one backend, with a clock the test moves.
    final class World {
        let backend: SyncBackend
        let directory: URL
        let remote: ModelContainer
        let clock = ManualClock()
        private let remoteName = "remote-" + UUID().uuidString

        init(_ backend: SyncBackend) throws {
            self.backend = backend
            directory = try temporaryDirectory()
            remote = try ModelContainer(for: SyncMergedReferenceTests.schema, configurations: Self.configuration(backend, "remote", directory))
        }

        private static func configuration(_ backend: SyncBackend, _ name: String, _ directory: URL) -> any DataStoreConfiguration {
            switch backend {
            case .memory: MemoryStoreConfiguration(name: name + "-" + UUID().uuidString, schema: SyncMergedReferenceTests.schema)
            case .json: JSONStoreConfiguration(url: directory.appending(path: name + ".json"), schema: SyncMergedReferenceTests.schema)
            }
        }

        func replica(_ name: String) throws -> Replica {
            let container = try ModelContainer(for: SyncMergedReferenceTests.schema, configurations: Self.configuration(backend, name, directory))
            return Replica(container: container, replicator: try Replicator(local: container, remote: remote, configuration: clock.driving()))
        }
    }

    /// What a container holds: each task's label, each board's labels, the labels' names.
    struct Held: Equatable, CustomStringConvertible {
        var taskLabels: [String: UUID?] = [:]
        var boardLabels: [String: [UUID]] = [:]
        var labels: [UUID: String] = [:]

        init(_ container: ModelContainer) throws {
            let context = ModelContext(container)
            for task in try context.fetch(FetchDescriptor<SyncTask>()) { taskLabels[task.title] = task.label?.id }
            for board in try context.fetch(FetchDescriptor<SyncLabelBoard>()) {
                boardLabels[board.name] = board.labels.map(\.id).sorted { $0.uuidString < $1.uuidString }
            }
            for label in try context.fetch(FetchDescriptor<SyncLabel>()) { labels[label.id] = label.name }
        }

        init(taskLabels: [String: UUID?], boardLabels: [String: [UUID]], labels: [UUID: String]) {
            self.taskLabels = taskLabels
            self.boardLabels = boardLabels
            self.labels = labels
        }

        var description: String { "tasks \(taskLabels), boards \(boardLabels), labels \(labels)" }
    }

    private static func label(_ id: UUID, note: String) -> SyncLabel {
        let label = SyncLabel(name: "urgent", note: note)
        label.id = id
        return label
    }

    private static func fetchLabel(_ id: UUID, _ context: ModelContext) throws -> SyncLabel {
        try #require(try context.fetch(FetchDescriptor<SyncLabel>()).first { $0.id == id })
    }

    /// Each replica inserts a label "urgent" and a task and a board referring to its own: after
    /// the merge, every reference names the survivor, on every replica and the remote, whichever
    /// side made the merge (the remote, when b pushes before it pulls a's label; else b, pulling
    /// a's label into its own unpushed one).
    @Test(arguments: SyncBackend.allCases, [false, true])
    func referencesToTheLoserMoveToTheSurvivor(_ backend: SyncBackend, bPushesFirst: Bool) async throws {
        let world = try World(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        for (replica, name, id) in [(a, "a", Self.large), (b, "b", Self.small)] {
            try replica.edit { context in
                let label = Self.label(id, note: name)
                let task = SyncTask(title: "task " + name, priority: 0, done: false, owner: name)
                let board = SyncLabelBoard(name: "board " + name)
                for model in [label, task, board] as [any PersistentModel] { context.insert(model) }
                task.label = label
                board.labels.append(label)
            }
        }
        try await a.sync()
        world.clock.advance()
        if bPushesFirst { try await b.replicator.push() }   // the remote merges the labels
        for replica in [b, a, b] { try await replica.sync() }

        let expected = Held(taskLabels: ["task a": Self.small, "task b": Self.small],
                            boardLabels: ["board a": [Self.small], "board b": [Self.small]], labels: [Self.small: "urgent"])
        for (name, container) in [("a", a.container), ("b", b.container), ("the remote", world.remote)] {
            #expect(try Held(container) == expected, "\(name)")
        }
    }

    /// A replica that pulled the loser before the merge names it in edits it saves offline (a
    /// new task, a board's new member, and an existing task's label) after the merge was made:
    /// its push is redirected on the remote, its own rows when it learns of the merge.
    @Test(arguments: SyncBackend.allCases)
    func aLateReferenceToTheLoserGoesToTheSurvivor(_ backend: SyncBackend) async throws {
        let world = try World(backend)
        let a = try world.replica("a"), b = try world.replica("b"), c = try world.replica("c")
        try a.edit { context in
            context.insert(Self.label(Self.large, note: "a"))
            context.insert(SyncTask(title: "existing", priority: 0, done: false, owner: "a"))
            context.insert(SyncLabelBoard(name: "board"))
        }
        try await a.sync()
        try await c.sync()   // c holds the label that will lose
        world.clock.advance()
        try b.edit { context in context.insert(Self.label(Self.small, note: "b")) }
        try await b.sync()   // the remote merges a's label into b's
        try await a.sync()
        #expect(try Held(a.container).labels == [Self.small: "urgent"], "a learned of the merge")

        world.clock.advance()
        try c.edit { context in
            let loser = try Self.fetchLabel(Self.large, context)
            let task = SyncTask(title: "new", priority: 0, done: false, owner: "c")
            context.insert(task)
            task.label = loser
            try #require(try context.fetch(FetchDescriptor<SyncTask>()).first { $0.title == "existing" }).label = loser
            try #require(try context.fetch(FetchDescriptor<SyncLabelBoard>()).first).labels.append(loser)
        }
        try await c.sync()
        let expected = Held(taskLabels: ["existing": Self.small, "new": Self.small], boardLabels: ["board": [Self.small]],
                            labels: [Self.small: "urgent"])
        #expect(try Held(world.remote) == expected, "the remote, after c's push")
        for replica in [a, b, c, a, b] { try await replica.sync() }
        for (name, container) in [("a", a.container), ("b", b.container), ("c", c.container), ("the remote", world.remote)] {
            #expect(try Held(container) == expected, "\(name)")
        }
    }
}
