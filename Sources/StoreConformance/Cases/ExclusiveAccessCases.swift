import Foundation
import StoreProtocol

/// `ExclusiveAccessProviding`: one caller at a time may read and then save (what a replicator's
/// push relies on). The cases check a store that conforms and pass a store that does not
/// without checking anything: the protocol is optional.
///
/// Exclusion is checked without sleeps: two threads take turns incrementing a counter by reading
/// and then saving it inside the access. Each turn, each thread says that it is about to ask for
/// the access before it asks, and the body that gets in first waits until every thread has said
/// so before it saves: the other thread is then at the access, so a store that lets it in shows
/// two bodies inside at once (and a counter short of the turns taken), while a store that
/// excludes keeps it waiting until the body ends, whatever the scheduling.
enum ExclusiveAccessCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "exclusiveAccess", name: "oneStoreGivesItToOneCallerAtATime", requires: .updates) { target in
            let container = try target.makeContainer()
            guard let access = exclusiveAccess(container) else { return }
            try await checkTurnsExclude([(access, container), (access, container)])
        },
        ConformanceCase(area: "exclusiveAccess", name: "twoContainersOnOneConfigurationNeverHoldItAtOnce",
                        requires: [.updates, .persistence]) { target in
            // Two containers on one configuration: the store's own instances, as two processes have.
            let configuration = try target.makeConfiguration()
            let first = try target.open(configuration), second = try target.open(configuration)
            guard let firstAccess = exclusiveAccess(first), let secondAccess = exclusiveAccess(second) else { return }
            try await checkTurnsExclude([(firstAccess, first), (secondAccess, second)])
        },
        ConformanceCase(area: "exclusiveAccess", name: "theBodysErrorIsRethrownAndTheAccessReleased") { target in
            let configuration = try target.makeConfiguration()
            let container = try target.open(configuration)
            guard let access = exclusiveAccess(container) else { return }
            let marker = UUID()
            do {
                try access.withExclusiveAccess { throw BodyError(marker: marker) }
                throw ConformanceFailure("withExclusiveAccess returned although its body threw")
            } catch let error as BodyError {
                try checkEqual(error.marker, marker, "the error withExclusiveAccess threw (the body's own)")
            }
            // Released: another caller (another container where the store persists, else another
            // thread) takes it at once. A store that kept it would make this wait forever.
            let other = target.capabilities.contains(.persistence) ? try target.open(configuration) : container
            let otherAccess = try require(exclusiveAccess(other), "the exclusive access of a second container on the store")
            let value = try await onThreads(1) { _ in try otherAccess.withExclusiveAccess { 7 } }
            try checkEqual(value, [7], "the value the next caller's body returned")
            try checkEqual(try access.withExclusiveAccess { 8 }, 8, "the value of the first caller's next body")
        },
        ConformanceCase(area: "exclusiveAccess", name: "aNestedCallOnTheSameStoreRunsAtOnce") { target in
            let container = try target.makeContainer()
            guard let access = exclusiveAccess(container) else { return }
            let order = Locked<[String]>([])
            var other: Task<[Void], any Error>?
            // A store that is not reentrant waits for itself here (the test's time limit reports it).
            let inner = try access.withExclusiveAccess {
                let inner = try access.withExclusiveAccess { "inner" }
                // Still held after the nested call: a caller on another thread gets in after this body only.
                other = Task { try await onThreads(1) { _ in try access.withExclusiveAccess { order.withLock { $0.append("other caller") } } } }
                try insertTrips(["saved after the nested call"], into: container)
                order.withLock { $0.append("outer body") }
                return inner
            }
            _ = try await other?.value
            try checkEqual(inner, "inner", "the value of the nested call's body")
            try checkEqual(order.withLock { $0 }, ["outer body", "other caller"], "the order of the outer body's end and another caller's body")
        },
        ConformanceCase(area: "exclusiveAccess", name: "savesInsideTheBodyAreReadBack") { target in
            let configuration = try target.makeConfiguration()
            let container = try target.open(configuration)
            guard let access = exclusiveAccess(container) else { return }
            let inside = try access.withExclusiveAccess { () throws -> [String] in
                try insertTrips(["inside one", "inside two"], into: container)
                return try sortedTripNames(container)
            }
            try checkEqual(inside, ["inside one", "inside two"], "trips read back inside the body that saved them")
            try checkEqual(try sortedTripNames(container), ["inside one", "inside two"], "trips read back after the body")
            guard target.capabilities.contains(.persistence) else { return }
            try checkEqual(try sortedTripNames(try target.open(configuration)), ["inside one", "inside two"],
                           "trips read back through another container on the store")
        },
    ]

    /// The turns each thread takes.
    static let turns = 40

    /// The store's exclusive access, `nil` when it does not offer one.
    static func exclusiveAccess(_ container: ModelContainer) -> (any ExclusiveAccessProviding)? {
        container.stores.first as? any ExclusiveAccessProviding
    }

    /// Each caller on a thread of its own takes ``turns`` turns, started together: inside the
    /// access, once every caller asked for it this turn, it reads a counter trip and saves it
    /// incremented. Fails when two bodies were inside at once or the counter lost an increment.
    static func checkTurnsExclude(_ callers: [(access: any ExclusiveAccessProviding, container: ModelContainer)]) async throws {
        try insertTrips(["counter"], into: callers[0].container)
        let turnsTaken = Turns(parties: callers.count)
        let inside = Locked(0), overlaps = Locked(0)
        _ = try await onThreads(callers.count) { index in
            let (access, container) = callers[index]
            defer { turnsTaken.abandon() }
            for turn in 0..<turns {
                try turnsTaken.start()
                turnsTaken.ask()
                try access.withExclusiveAccess {
                    if inside.withLock({ $0 += 1; return $0 }) > 1 { overlaps.withLock { $0 += 1 } }
                    defer { inside.withLock { $0 -= 1 } }
                    // Every other caller is at the access now (or inside it, where it excludes nothing).
                    try turnsTaken.waitUntilAllAsked(turn)
                    let context = ModelContext(container)
                    let counter = try require(try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "counter" })).first,
                                              "the counter trip")
                    counter.rating += 1
                    try context.save()
                }
            }
        }
        try checkEqual(overlaps.withLock { $0 }, 0, "bodies that began while another caller's body ran")
        let counter = try ModelContext(callers[0].container).fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.name == "counter" }))
        try checkEqual(counter.map(\.rating), [turns * callers.count], "the counter after every turn's read and increment")
    }

    /// Runs `work` for indexes `0..<count`, each on a thread of its own (a body that waits for the
    /// access must not hold one of the few threads async tasks share), and returns the results;
    /// the first error is rethrown once every thread ended.
    static func onThreads<Result: Sendable>(_ count: Int, _ work: @escaping @Sendable (Int) throws -> Result) async throws -> [Result] {
        let results = Locked<[Int: Result]>([:]), failure = Locked<(any Error)?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let remaining = Locked(count)
            for index in 0..<count {
                Thread {
                    do {
                        let result = try work(index)
                        results.withLock { $0[index] = result }
                    } catch {
                        failure.withLock { $0 = $0 ?? error }
                    }
                    if remaining.withLock({ $0 -= 1; return $0 }) == 0 { done.resume() }
                }.start()
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return results.withLock { results in (0..<count).compactMap { results[$0] } }
    }

    /// The turns of threads that take the access in turn: each turn starts when every thread is
    /// ready for it (a barrier), and each thread says when it is about to ask for the access. A
    /// thread that ends early (its work threw) abandons the turns, so that the others stop
    /// waiting and end too.
    final class Turns: @unchecked Sendable {
        // @unchecked: the counts are only touched while `condition` is locked.
        private let condition = NSCondition()
        private let parties: Int
        private var ready = 0, started = 0, asked = 0, abandoned = false

        init(parties: Int) { self.parties = parties }

        /// Waits until every thread is ready for the next turn.
        func start() throws {
            try locked {
                let mine = started
                ready += 1
                if ready == parties {
                    ready = 0
                    started += 1
                    condition.broadcast()
                }
                try wait { started > mine }
            }
        }

        /// Says that this thread is about to ask for the access.
        func ask() {
            locked {
                asked += 1
                condition.broadcast()
            }
        }

        /// Waits until every thread said it is about to ask for the access in turn `turn` (0-based).
        func waitUntilAllAsked(_ turn: Int) throws {
            try locked { try wait { asked >= (turn + 1) * parties } }
        }

        func abandon() {
            locked {
                abandoned = true
                condition.broadcast()
            }
        }

        private func locked<T>(_ body: () throws -> T) rethrows -> T {
            condition.lock()
            defer { condition.unlock() }
            return try body()
        }

        /// Waits (holding the lock) until `done`; throws when another thread abandoned the turns first.
        private func wait(until done: () -> Bool) throws {
            while !done() {
                if abandoned { throw ConformanceFailure("another caller stopped before its turns ended") }
                condition.wait()
            }
        }
    }

    struct BodyError: Error {
        let marker: UUID
    }
}
