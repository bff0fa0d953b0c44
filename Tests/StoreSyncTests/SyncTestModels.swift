import DataStores
import Foundation
import JSONStore
import MemoryStore
@testable import StoreSync
import StoreTestSupport

@Model final class SyncNote {
    var title: String
    var body: String
    var rank: Int
    var folder: SyncFolder?
    var tags: [SyncTag] = []
    init(title: String, body: String = "", rank: Int = 0) {
        self.title = title
        self.body = body
        self.rank = rank
    }
}

@Model final class SyncFolder {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \SyncNote.folder) var notes: [SyncNote] = []
    init(name: String) { self.name = name }
}

/// A to-many relationship without an inverse: its members are dated one by one.
@Model final class SyncTag {
    var label: String
    init(label: String) { self.label = label }
}

@Model final class SyncAccount {
    #Unique<SyncAccount>([\.email])
    var email: String
    var displayName: String
    var credits: Int
    init(email: String, displayName: String = "", credits: Int = 0) {
        self.email = email
        self.displayName = displayName
        self.credits = credits
    }
}

/// A model whose `id` the app chooses: it can be inserted again after a deletion.
@Model final class SyncBadge {
    var id: UUID
    var caption: String
    init(id: UUID, caption: String) {
        self.id = id
        self.caption = caption
    }
}

enum SyncBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory, json
    var description: String { rawValue }
}

/// A remote store and replicas of it, on one backend.
final class SyncWorld {
    static var appModels: [any PersistentModel.Type] { [SyncNote.self, SyncFolder.self, SyncTag.self, SyncAccount.self, SyncBadge.self] }
    static let schema = Schema(appModels + Replicator.models)

    let backend: SyncBackend
    let directory: URL
    let server: ModelContainer

    init(_ backend: SyncBackend, serverRetention: HistoryRetention = .unlimited) throws {
        self.backend = backend
        directory = try temporaryDirectory()
        server = try SyncWorld.container(backend, name: "server", in: directory, retention: serverRetention)
    }

    static func container(_ backend: SyncBackend, name: String, in directory: URL, schema: Schema = SyncWorld.schema,
                          retention: HistoryRetention = .unlimited) throws -> ModelContainer {
        switch backend {
        case .memory:
            return try ModelContainer(for: schema, configurations: [
                MemoryStoreConfiguration(name: name + "-" + UUID().uuidString, schema: schema, historyRetention: retention)])
        case .json:
            return try ModelContainer(for: schema, configurations: [
                JSONStoreConfiguration(url: directory.appending(path: name + ".json"), schema: schema, historyRetention: retention)])
        }
    }

    /// A replica: its own store and a replicator to the server.
    func replica(_ name: String, configuration: SyncConfiguration = SyncConfiguration(),
                 retention: HistoryRetention = .unlimited) throws -> Replica {
        let container = try SyncWorld.container(backend, name: name, in: directory, retention: retention)
        return Replica(container: container, replicator: try Replicator(local: container, remote: server, configuration: configuration))
    }
}

struct Replica {
    let container: ModelContainer
    let replicator: Replicator

    /// A new context's view of the notes, by title.
    func notes() throws -> [SyncNote] {
        try ModelContext(container).fetch(FetchDescriptor<SyncNote>(sortBy: [SortDescriptor(\.title)]))
    }

    func note(_ id: PersistentIdentifier) throws -> SyncNote? {
        try ModelContext(container).model(for: id) as? SyncNote
    }

    /// Runs `body` in a new context and saves it.
    @discardableResult
    func edit<T>(_ body: (ModelContext) throws -> T) throws -> T {
        let context = ModelContext(container)
        let result = try body(context)
        try context.save()
        return result
    }

    @discardableResult
    func sync() async throws -> SyncReport { try await replicator.sync() }
}

/// Collects what a replicator reports through its handlers.
final class SyncRecorder: Sendable {
    private let state = Locked<(phases: [SyncPhase], resolutions: [SyncResolution])>(([], []))

    var phases: [SyncPhase] { state.withLock { $0.phases } }
    var resolutions: [SyncResolution] { state.withLock { $0.resolutions } }

    func configuration(_ resolver: any ConflictResolver = LastWriterWins(), batchSize: Int = 100) -> SyncConfiguration {
        SyncConfiguration(
            resolver: resolver,
            resolutionHandler: { resolution in self.state.withLock { $0.resolutions.append(resolution) } },
            phaseHandler: { phase in self.state.withLock { $0.phases.append(phase) } },
            batchSize: batchSize)
    }
}

/// A wall clock a test moves by hand, shared by replicas: edits are dated in the order the test
/// says, not by the milliseconds they happen to fall in.
final class ManualClock: Sendable {
    private let now = Locked<Int64>(1_000_000)

    func advance(by milliseconds: Int64 = 10) { now.withLock { $0 += milliseconds } }

    /// `configuration` reading this clock.
    func driving(_ configuration: SyncConfiguration = SyncConfiguration()) -> SyncConfiguration {
        var configuration = configuration
        configuration.wallClock = { self.now.withLock { $0 } }
        return configuration
    }
}
