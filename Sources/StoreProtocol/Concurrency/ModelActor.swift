import Dispatch
import Foundation

/// An actor that owns a ``ModelContext`` and runs on the context's executor: SwiftData's
/// `ModelActor`, for background work (a batch import, a sync) off the main actor.
///
/// Write `@ModelActor` on an actor: it adds ``modelContainer``, ``modelExecutor`` and
/// `init(modelContainer:)`, which makes a new context on the container and runs the actor on a
/// ``DefaultSerialModelExecutor`` of its own.
///
/// ```swift
/// @ModelActor
/// actor TripImporter {
///     func importTrips(named names: [String]) throws -> [PersistentIdentifier] {
///         let trips = names.map { Trip(name: $0) }
///         for trip in trips { modelContext.insert(trip) }
///         try modelContext.save()
///         return trips.map(\.persistentModelID)
///     }
/// }
///
/// let ids = try await TripImporter(modelContainer: container).importTrips(named: ["Iceland"])
/// let trip = try container.mainContext.model(for: ids[0])   // on the main actor
/// ```
///
/// Models are not Sendable: pass ``PersistentIdentifier``s between actors, and look them up
/// with ``subscript(_:as:)`` or ``ModelContext/model(for:)`` on the other side. Save before
/// handing identifiers over: a model inserted and not saved is not in the store yet.
public protocol ModelActor: Actor {
    /// The container whose stores the actor's context reads and writes.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on, which owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's context: use it only inside the actor.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// Runs the actor on ``modelExecutor`` when it is a serial executor (as `@ModelActor`'s
    /// ``DefaultSerialModelExecutor`` is). An executor that is not serial cannot run an actor:
    /// such an actor runs on one serial queue that all of them share.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        if let serial = modelExecutor as? any SerialModelExecutor { return serial.asUnownedSerialExecutor() }
        return SharedModelActorQueue.shared.asUnownedSerialExecutor()
    }

    /// The model with this identifier as `T`: the instance the actor's context holds, or fetched
    /// from its store; `nil` when no stored model has the identifier or it is not a `T`.
    /// - Complexity: one store fetch when the context does not hold the model.
    public subscript<T: PersistentModel>(_ id: PersistentIdentifier, as type: T.Type) -> T? {
        (try? modelContext.model(for: id)) as? T
    }
}

/// The serial executor of model actors whose ``ModelActor/modelExecutor`` is not serial.
final class SharedModelActorQueue: SerialExecutor {
    static let shared = SharedModelActorQueue()
    private let queue = DispatchQueue(label: "ModelActor.shared")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
